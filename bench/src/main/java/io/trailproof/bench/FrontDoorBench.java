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
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The front door's cost and what it protects (src/site/performance.md#the-front-door-under-a-flood),
 * against the packaged server, and optionally against a baseline distribution (a build without the
 * front door) in the same run:
 * <ul>
 *   <li>{@code GET /v1/merkle/root} with wrk at 1 and 16 connections, the two servers alternating
 *   rounds so that the machine's noise falls on both;</li>
 *   <li>a flood: one address (127.0.0.1) opens {@code --flood} connections (default 1,100) and holds
 *   them idle or slow in every way a probe found (silent, a head trickled, a chunked body to the
 *   console, a body to the API, kept alive after an answer); then {@code --tries} new clients (default
 *   30) from 127.0.0.2, one at a time, each time until its answer (at most 5 s: "none" beyond).</li>
 * </ul>
 * Usage: {@code FrontDoorBench [DIST] [--baseline DIST] [--rounds R] [--seconds S] [--flood N] [--tries T]}.
 */
public final class FrontDoorBench {

    private static final long TRY_LIMIT_MILLIS = 5_000;

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--baseline", "--rounds", "--seconds", "--flood", "--tries");
        Path dist = a.dist();
        String baselineDist = a.option("--baseline", null);
        int rounds = a.intOption("--rounds", 3);
        int seconds = a.intOption("--seconds", 10);
        int flood = a.intOption("--flood", 1100);
        int tries = a.intOption("--tries", 30);
        Wrk wrk = Wrk.find(Path.of("bench/wrk"));
        List<Named> servers = new ArrayList<>();
        servers.add(new Named("front door", dist));
        if (baselineDist != null) {
            servers.add(new Named("baseline", Path.of(baselineDist)));
        }
        System.out.printf(Locale.ROOT, "front door bench: %d round(s) of %d s per server and connection count, flood %,d, "
                + "%d tries (%d cores)%n", rounds, seconds, flood, tries, Runtime.getRuntime().availableProcessors());
        List<ServerUnderTest> started = new ArrayList<>();
        try {
            for (Named n : servers) {
                Path data = Files.createTempDirectory("trailproof-front-door-bench");
                started.add(ServerUnderTest.start(n.dist(), data, "-Xmx1g " + System.getProperty("bench.serverOpts", "")));
            }
            for (ServerUnderTest s : started) {
                seed(s.port);
            }
            if (wrk != null) {
                System.out.println();
                System.out.println("| GET /v1/merkle/root, wrk | server | p50 ms | p99 ms | requests/s | server CPU µs/request |");
                System.out.println("|---|---|---|---|---|---|");
                for (int connections : new int[] {1, 16}) {
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
                            Wrk.Result result = wrk.run("http://127.0.0.1:" + started.get(k).port + "/v1/merkle/root",
                                    connections, seconds, Map.of());
                            results.get(k).add(result);
                            cpu.get(k).add((ServerProbe.cpuNanos(pid)[0] - before) / 1e3 / result.requests());
                        }
                    }
                    for (int i = 0; i < started.size(); i++) {
                        List<Wrk.Result> rs = results.get(i);
                        System.out.printf(Locale.ROOT, "| %d connection(s) | %s | %.2f | %.2f (rounds: %s) | %.0f | %.1f |%n",
                                connections, servers.get(i).name(), median(rs.stream().map(Wrk.Result::p50).toList()),
                                median(rs.stream().map(Wrk.Result::p99).toList()),
                                String.join(", ", rs.stream().map(x -> String.format(Locale.ROOT, "%.2f", x.p99())).toList()),
                                median(rs.stream().map(Wrk.Result::rate).toList()), median(cpu.get(i)));
                    }
                }
            }
            System.out.println();
            System.out.println("| flood of " + flood + " from 127.0.0.1 | server | held | new client from 127.0.0.2: p50 / p99 / max ms | unanswered |");
            System.out.println("|---|---|---|---|---|");
            for (int i = 0; i < started.size(); i++) {
                flood(servers.get(i).name(), started.get(i).port, flood, tries);
            }
        } finally {
            for (ServerUnderTest s : started) {
                s.close();
            }
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
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
