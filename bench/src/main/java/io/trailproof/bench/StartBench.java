package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Start time of the packaged server (src/site/operations.md#start-up) on logs of two sizes, beside
 * the start of an empty data directory in the same run: from process start until it prints that it
 * listens, until a first {@code POST /v1/events} is answered, and until {@code GET /health} lists
 * nothing under {@code loading}; each after a clean stop and after a {@code kill -9} of the previous
 * process. The logs are filled through the ledger itself (about 500-byte events, 500 agents, batches
 * of 1,000); a first start of each, not measured, builds its search index, as a service that ran on
 * the log would have it ({@code --no-index-first} leaves the index to follow beside every start).
 * With {@code --baseline DIST}, every round starts both distributions on the same data directories,
 * alternating which goes first, so that the two are compared on one machine state.
 *
 * <pre>java -cp ... io.trailproof.bench.StartBench [DIST] [--events N] [--large M] [--rounds R]
 *     [--baseline DIST] [--no-index-first]</pre>
 * (defaults N = 1,000,000, M = 3N, 2 rounds)
 */
public final class StartBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private StartBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, List.of("--events", "--large", "--rounds", "--baseline"),
                Set.of("--no-index-first"));
        long events = a.longOption("--events", 1_000_000);
        long large = a.longOption("--large", 3 * events);
        int rounds = (int) a.longOption("--rounds", 2);
        Map<String, Path> dists = new LinkedHashMap<>();
        dists.put("candidate", a.dist());
        String baseline = a.option("--baseline", null);
        if (baseline != null) {
            dists.put("baseline", Path.of(baseline));
        }
        Path work = Files.createTempDirectory("trailproof-start-bench");
        try {
            Map<Path, Long> logs = new LinkedHashMap<>();
            logs.put(work.resolve("empty"), 0L);
            logs.put(work.resolve("small"), events);
            logs.put(work.resolve("large"), large);
            for (Map.Entry<Path, Long> log : logs.entrySet()) {
                fill(log.getKey(), log.getValue());
            }
            if (!a.flag("--no-index-first")) {
                for (Path data : logs.keySet()) {
                    try (ServerUnderTest s = start(a.dist(), data)) {   // builds the search index; not measured
                        awaitIndexed(s.port);
                    }
                }
            }
            System.out.println("distribution, log size, round: after a clean stop | after kill -9: "
                    + "listening / first write / nothing loading (ms)");
            List<String> names = new ArrayList<>(dists.keySet());
            for (int round = 1; round <= rounds; round++) {
                for (Map.Entry<Path, Long> log : logs.entrySet()) {
                    for (String name : names) {
                        // the data directory was last closed by a clean stop; this start ends in a kill -9,
                        // which the next one follows, and that one ends in a clean stop again
                        String afterStop = measure(dists.get(name), log.getKey(), true);
                        String afterKill = measure(dists.get(name), log.getKey(), false);
                        System.out.printf("%-9s %,12d events, round %d: %s | %s%n", name, log.getValue(), round,
                                afterStop, afterKill);
                    }
                }
                Collections.reverse(names);
            }
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * One measured start: listening / first write (its status) / nothing loading, in ms. The process
     * is then killed with SIGKILL ({@code thenKill}) or stopped cleanly: what the next start measured
     * on the same data directory follows.
     */
    private static String measure(Path dist, Path data, boolean thenKill) throws Exception {
        long t0 = System.nanoTime();
        try (ServerUnderTest s = start(dist, data)) {
            long listening = s.startNanos;
            int status = write(s.port);
            long written = System.nanoTime() - t0;
            awaitLoaded(s.port);
            long loaded = System.nanoTime() - t0;
            if (thenKill) {
                s.kill();
            }
            return String.format("%,7d / %,7d (%d) / %,7d", listening / 1_000_000, written / 1_000_000, status,
                    loaded / 1_000_000);
        }
    }

    private static ServerUnderTest start(Path dist, Path data) throws Exception {
        return ServerUnderTest.start(dist, data, ("-Xmx512m " + System.getProperty("bench.serverOpts", "")).trim());
    }

    private static void fill(Path data, long events) throws Exception {
        try (Ledger ledger = Ledger.open(data, new LedgerOptions(64L << 20, 100_000), Clock.systemUTC(),
                new SecureRandom())) {
            for (long i = 0; i < events; ) {
                List<ObjectNode> batch = new ArrayList<>(1000);
                for (int k = 0; k < 1000 && i < events; k++, i++) {
                    batch.add((ObjectNode) JSON.readTree(SampleEvents.event(i, "agent-" + (i % 500))));
                }
                ledger.append(batch);
            }
        }
    }

    private static int write(int port) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/events"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"agent_id\":\"start-probe\"}")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private static void awaitIndexed(int port) throws Exception {
        HttpRequest status = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/admin/index")).build();
        while (!"ready".equals(JSON.readTree(HTTP.send(status, HttpResponse.BodyHandlers.ofString()).body())
                .path("state").asText())) {
            Thread.sleep(500);
        }
    }

    private static void awaitLoaded(int port) throws Exception {
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build();
        while (JSON.readTree(HTTP.send(health, HttpResponse.BodyHandlers.ofString()).body()).path("loading").size() > 0) {
            Thread.sleep(20);
        }
    }
}
