package io.trailproof.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The front door's cost and what it protects (src/site/performance.md#the-front-door-under-a-flood),
 * against the packaged server, and optionally against a baseline distribution (the same commit without
 * the checks: {@code bench/run-front-door --self-baseline} builds it) in the same run:
 * <ul>
 *   <li>{@code GET /v1/merkle/root} with wrk at a fixed number of connections (1 and 16), after the
 *   same warm-up for each server, in many short rounds, the servers taking turns within each round (in
 *   the reverse order every other round) so that the machine's noise falls on both; with {@code --pin},
 *   wrk on one CPU and the servers on the others (taskset). It prints, per server, the
 *   median of the per-round p99s with their spread, and the ratio front door / baseline two ways: of
 *   the medians, and the median of each round's own ratio (the two runs of a round are seconds
 *   apart);</li>
 *   <li>a flood: one address (127.0.0.1) opens {@code --flood} connections (default 1,100; 0 skips it)
 *   and holds them idle or slow in every way a probe found (silent, a head trickled, a chunked body to
 *   the console, a body to the API, kept alive after an answer); then {@code --tries} new clients
 *   (default 30) from 127.0.0.2, one at a time, each time until its answer (at most 5 s: "none"
 *   beyond).</li>
 * </ul>
 * The machine's load average is printed before and after: on a shared machine the figures are only as
 * good as the quiet they had.
 * Usage: {@code FrontDoorBench [DIST] [--baseline DIST] [--rounds R] [--seconds S] [--warmup W]
 * [--connections 1,16] [--flood N] [--tries T] [--pin]}.
 */
public final class FrontDoorBench {

    private static final long TRY_LIMIT_MILLIS = 5_000;
    /** The ratio the checks may cost on the root's p99. */
    private static final double GOAL = 1.1;

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, List.of("--baseline", "--rounds", "--seconds", "--warmup", "--connections",
                "--flood", "--tries"), Set.of("--pin"));
        Path dist = a.dist();
        String baselineDist = a.option("--baseline", null);
        int rounds = a.intOption("--rounds", 20);
        int seconds = a.intOption("--seconds", 2);
        int warmup = a.intOption("--warmup", 10);
        List<Integer> connectionCounts = Arrays.stream(a.option("--connections", "1,16").split(","))
                .map(String::trim).map(Integer::parseInt).toList();
        int flood = a.intOption("--flood", 1100);
        int tries = a.intOption("--tries", 30);
        Wrk wrk = Wrk.find(Path.of("bench/wrk"));
        Pinning pins = Pinning.choose(a.flag("--pin"));
        List<Named> servers = new ArrayList<>();
        servers.add(new Named("front door", dist));
        if (baselineDist != null) {
            servers.add(new Named("baseline", Path.of(baselineDist)));
        }
        System.out.printf(Locale.ROOT, "front door bench: %d round(s) of %d s per server and connection count after %d s of"
                + " warm-up each, flood %,d, %d tries; %d cores, %s; load average %s%n", rounds, seconds, warmup, flood,
                tries, Runtime.getRuntime().availableProcessors(), pins, loadAverage());
        List<ServerUnderTest> started = new ArrayList<>();
        List<String> ratios = new ArrayList<>();
        try {
            for (Named n : servers) {
                Path data = Files.createTempDirectory("trailproof-front-door-bench");
                ServerUnderTest s = ServerUnderTest.start(n.dist(), data, "-Xmx1g " + System.getProperty("bench.serverOpts", ""));
                started.add(s);
                pins.pinServer(s.pid());
            }
            for (ServerUnderTest s : started) {
                seed(s.port);
            }
            if (wrk != null) {
                for (int r = 0; r < 2; r++) {
                    for (ServerUnderTest s : started) {
                        wrk.run(pins.wrkPrefix(), rootUrl(s), 16, Math.max(1, warmup / 2), Map.of());
                    }
                }
                System.out.println();
                System.out.println("| GET /v1/merkle/root, wrk | server | p50 ms | p99 ms: median of rounds (spread) | requests/s"
                        + " | server CPU µs/request |");
                System.out.println("|---|---|---|---|---|---|");
                for (int connections : connectionCounts) {
                    List<List<Wrk.Result>> results = new ArrayList<>();
                    List<List<Double>> cpu = new ArrayList<>();
                    started.forEach(s -> {
                        results.add(new ArrayList<>());
                        cpu.add(new ArrayList<>());
                    });
                    for (int r = 0; r < rounds; r++) {
                        for (int i = 0; i < started.size(); i++) {
                            // The order alternates: neither server always runs right after the other.
                            int k = r % 2 == 0 ? i : started.size() - 1 - i;
                            long pid = started.get(k).process.pid();
                            long before = ServerProbe.cpuNanos(pid)[0];
                            Wrk.Result result = wrk.run(pins.wrkPrefix(), rootUrl(started.get(k)), connections, seconds, Map.of());
                            results.get(k).add(result);
                            cpu.get(k).add((ServerProbe.cpuNanos(pid)[0] - before) / 1e3 / result.requests());
                        }
                    }
                    for (int i = 0; i < started.size(); i++) {
                        List<Double> p99s = results.get(i).stream().map(Wrk.Result::p99).toList();
                        System.out.printf(Locale.ROOT, "| %d connection(s) | %s | %.2f | %.2f (%.2f-%.2f, middle half %.2f-%.2f) | %.0f | %.1f |%n",
                                connections, servers.get(i).name(), median(results.get(i).stream().map(Wrk.Result::p50).toList()),
                                median(p99s), Collections.min(p99s), Collections.max(p99s), quantile(p99s, 0.25),
                                quantile(p99s, 0.75), median(results.get(i).stream().map(Wrk.Result::rate).toList()),
                                median(cpu.get(i)));
                    }
                    if (started.size() == 2) {
                        List<Double> candidate = results.get(0).stream().map(Wrk.Result::p99).toList();
                        List<Double> baseline = results.get(1).stream().map(Wrk.Result::p99).toList();
                        List<Double> paired = new ArrayList<>();
                        for (int r = 0; r < rounds; r++) {
                            paired.add(candidate.get(r) / baseline.get(r));
                        }
                        ratios.add(String.format(Locale.ROOT, "%d connection(s): p99 ratio %.2f (medians), %.2f (median of"
                                        + " %d rounds' ratios, middle half %.2f-%.2f); CPU per request ratio %.2f",
                                connections, median(candidate) / median(baseline), median(paired), rounds,
                                quantile(paired, 0.25), quantile(paired, 0.75), median(cpu.get(0)) / median(cpu.get(1))));
                    }
                }
            }
            if (flood > 0) {
                System.out.println();
                System.out.println("| flood of " + flood + " from 127.0.0.1 | server | held | new client from 127.0.0.2: p50 / p99 / max ms | unanswered |");
                System.out.println("|---|---|---|---|---|");
                for (int i = 0; i < started.size(); i++) {
                    flood(servers.get(i).name(), started.get(i).port, flood, tries);
                }
            }
        } finally {
            for (ServerUnderTest s : started) {
                s.close();
            }
        }
        System.out.println();
        System.out.println("load average after: " + loadAverage());
        for (String r : ratios) {
            System.out.println("front door / baseline, " + r + " (goal: p99 ratio at most " + GOAL + ")");
        }
    }

    private static String rootUrl(ServerUnderTest s) {
        return "http://127.0.0.1:" + s.port + "/v1/merkle/root";
    }

    /** The 1, 5 and 15 minute load averages, or "unknown". */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /**
     * Which CPUs wrk and the servers run on: with {@code --pin}, two or more CPUs and {@code taskset}
     * installed, wrk on CPU 0 and the servers on the rest, so that the load generator never takes a
     * server's CPU in the middle of a request; otherwise wherever the kernel puts them. Not the
     * default: on a machine with other work, a server confined to one CPU waits behind that work.
     */
    private record Pinning(List<String> wrkPrefix, String serverCpus) {
        static Pinning choose(boolean wanted) {
            int cpus = Runtime.getRuntime().availableProcessors();
            if (!wanted || cpus < 2 || !Files.isExecutable(Path.of("/usr/bin/taskset"))) {
                return new Pinning(List.of(), null);
            }
            return new Pinning(List.of("taskset", "-c", "0"), cpus == 2 ? "1" : "1-" + (cpus - 1));
        }

        void pinServer(long pid) throws IOException, InterruptedException {
            if (serverCpus == null) {
                return;
            }
            Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", serverCpus, Long.toString(pid))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IOException("taskset failed: " + out);
            }
        }

        @Override
        public String toString() {
            return serverCpus == null ? "not pinned" : "wrk on CPU 0, the servers on CPU " + serverCpus;
        }
    }

    private record Named(String name, Path dist) {
    }

    /** A few events, so that the root is of a real tree. */
    private static void seed(int port) throws IOException {
        for (int i = 0; i < 10; i++) {
            String body = "{\"agent_id\":\"bench\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"seed-" + i + "\"}";
            String answer = exchange(null, port, "POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1:" + port
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);
            if (!answer.startsWith("HTTP/1.1 201")) {
                throw new IOException("seeding failed: " + answer);
            }
        }
    }

    private static void flood(String name, int port, int count, int tries) throws IOException {
        String host = "Host: 127.0.0.1:" + port + "\r\n";
        String[] openings = {
                "",
                "GET /health HTTP/1.1\r\n" + host + "X-Slow: ",
                "GET / HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nab",
                "GET /ui/ HTTP/1.1\r\n" + host + "Transfer-Encoding: chunked\r\n\r\n5\r\nab",
                "POST /v1/events HTTP/1.1\r\n" + host + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a",
                "GET /health HTTP/1.1\r\n" + host + "\r\n",
        };
        List<SocketChannel> held = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                SocketChannel c;
                try {
                    c = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                } catch (IOException e) {
                    continue; // the accept queue is full: the server is not accepting
                }
                held.add(c);
                try {
                    c.write(ByteBuffer.wrap(openings[i % openings.length].getBytes(StandardCharsets.US_ASCII)));
                } catch (IOException e) {
                    // closed by the server as soon as accepted
                }
            }
            List<Long> millis = new ArrayList<>();
            int unanswered = 0;
            InetAddress other = InetAddress.getByName("127.0.0.2");
            for (int i = 0; i < tries; i++) {
                long t0 = System.nanoTime();
                String answer;
                try {
                    answer = exchange(other, port, "GET /v1/merkle/root HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n");
                } catch (IOException e) {
                    answer = "";
                }
                long ms = (System.nanoTime() - t0) / 1_000_000;
                if (answer.startsWith("HTTP/1.1 200")) {
                    millis.add(ms);
                } else {
                    unanswered++;
                    millis.add(TRY_LIMIT_MILLIS);
                }
            }
            Collections.sort(millis);
            System.out.printf(Locale.ROOT, "| | %s | %d | %d / %d / %d | %d of %d |%n", name, stillOpen(held),
                    millis.get(millis.size() / 2), millis.get((int) Math.ceil(millis.size() * 0.99) - 1),
                    millis.get(millis.size() - 1), unanswered, tries);
        } finally {
            for (SocketChannel c : held) {
                c.close();
            }
        }
    }

    private static int stillOpen(List<SocketChannel> channels) throws IOException {
        int open = 0;
        ByteBuffer sink = ByteBuffer.allocate(4096);
        for (SocketChannel c : channels) {
            c.configureBlocking(false);
            try {
                int n;
                do {
                    n = c.read(sink.clear());
                } while (n > 0);
                if (n == 0) {
                    open++;
                }
            } catch (IOException e) {
                // reset: closed
            }
        }
        return open;
    }

    /** One request on a new connection, from {@code from} when given; the answer's first bytes. */
    private static String exchange(InetAddress from, int port, String request) throws IOException {
        try (Socket s = new Socket()) {
            if (from != null) {
                s.bind(new InetSocketAddress(from, 0));
            }
            s.connect(new InetSocketAddress("127.0.0.1", port), (int) TRY_LIMIT_MILLIS);
            s.setSoTimeout((int) TRY_LIMIT_MILLIS);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    got.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                // what came is the answer
            }
            return got.toString(StandardCharsets.US_ASCII);
        }
    }

    private static double median(List<Double> values) {
        return quantile(values, 0.5);
    }

    /** The value at {@code q} of the sorted values (nearest rank; the upper middle for an even count at 0.5). */
    private static double quantile(List<Double> values, double q) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size())));
    }
}
