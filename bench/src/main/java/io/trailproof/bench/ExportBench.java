package io.trailproof.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Export throughput of several builds against one data directory, measured in the same run so that
 * the ratios survive a noisy machine: the load generator's export scenario alone, repeated.
 *
 * <p>Usage: {@code ExportBench --data DIR [--events N] [--rounds R] --dist DIST [--dist DIST...]} (defaults
 * 1,000,000 events, 3 rounds). An empty or missing DIR is first filled with N events (one in five for
 * {@code big-agent}) by the first distribution. Each round
 * starts each distribution in turn on the data, waits until its start-up re-verification is over,
 * exports {@code big-agent} three times (the first warms the JVM) and prints the rates.
 */
public final class ExportBench {

    private ExportBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parseOptions(args, "--data", "--events", "--rounds", "--dist");
        Path data = Path.of(a.required("--data"));
        long events = a.longOption("--events", 1_000_000);
        int rounds = a.intOption("--rounds", 3);
        List<Path> dists = new ArrayList<>();
        for (String d : a.all("--dist")) {
            dists.add(Path.of(d));
        }
        if (dists.isEmpty()) {
            throw new IllegalArgumentException("option --dist is required (once per build to compare)");
        }
        String heap = "-Xmx1g";
        if (!Files.isDirectory(data) || isEmpty(data)) {
            Files.createDirectories(data);
            try (ServerUnderTest server = ServerUnderTest.start(dists.get(0), data, heap)) {
                LoadGenerator g = new LoadGenerator(dists.get(0), events);
                g.port = server.port;
                g.batchIngest(4, 1000, events, 0);
                g.awaitSearchable();
                server.stop();
            }
        }
        for (int r = 0; r < rounds; r++) {
            for (Path dist : dists) {
                try (ServerUnderTest server = ServerUnderTest.start(dist, data, heap)) {
                    LoadGenerator g = new LoadGenerator(dist, events);
                    g.port = server.port;
                    g.awaitSearchable();
                    awaitVerified(g);
                    long count = g.agentCount("big-agent");
                    double first = g.export("big-agent", count);
                    double second = g.export("big-agent", count);
                    double third = g.export("big-agent", count);
                    System.out.printf(Locale.ROOT, "round %d %s: %,d events, export %,.0f/s, %,.0f/s, %,.0f/s%n", r,
                            dist, count, first, second, third);
                    server.stop();
                }
            }
        }
        System.exit(0); // the HTTP client's pool threads would keep the JVM alive
    }

    /** Waits until the start-up re-verification of every chain is over, so that it does not share the CPU. */
    private static void awaitVerified(LoadGenerator g) throws Exception {
        while (true) {
            boolean all = true;
            for (var a : LoadGenerator.JSON.readTree(g.get("/v1/agents").body())) {
                all &= !a.path("verified_at").isNull() && !a.path("verified_at").isMissingNode();
            }
            if (all) {
                return;
            }
            Thread.sleep(200);
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }
}
