package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * {@code POST /v1/decisions} against a single-event {@code POST /v1/events} (src/site/gates.md,
 * src/site/performance.md): the p99 of a decision (rule evaluation plus one durable write of the
 * DECISION event) as a ratio to the p99 of storing one event, at 1 and 16 connections, measured in
 * the same run on the same server with a 20-rule gate policy active, alternating the two in rounds
 * so that the machine's load falls on both. Both with wrk (the neutral client, bench/wrk) and the
 * project's own closed-loop client.
 *
 * <pre>bench/run-gates [--seconds S] [--rounds R] [--warmup W] [--connections 1,16] [--clients wrk|own|both] [--memory M]</pre>
 * (defaults 10 s, 3 rounds, 20 s of warm-up a path, 1 and 16 connections, both clients; {@code --memory M}
 * first makes decisions, then events, for M seconds each and prints the heap each leaves behind)
 */
public final class DecisionsBench {

    private static final String EVENT = "{\"agent_id\":\"bench-agent\",\"session_id\":\"s1\",\"action_type\":\"TOOL_CALL\","
            + "\"action_name\":\"transfer\",\"action_input\":{\"amount\":120,\"to\":\"acct-42\",\"memo\":\"invoice 2026-118\"},"
            + "\"labels\":{\"env\":\"prod\"}}";

    private DecisionsBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args.length > 0 && !args[0].startsWith("--") ? args[0] : "target/trailproof");
        int seconds = intArg(args, "--seconds", 10);
        int rounds = intArg(args, "--rounds", 3);
        int warmup = intArg(args, "--warmup", 20);
        int[] connectionCounts = Arrays.stream(stringArg(args, "--connections", "1,16").split(","))
                .mapToInt(Integer::parseInt).toArray();
        String clients = stringArg(args, "--clients", "both"); // wrk, own or both
        int memorySeconds = intArg(args, "--memory", 0);
        Wrk wrk = Wrk.find(Path.of("bench/wrk"));
        Path data = Files.createTempDirectory("trailproof-gates-bench");
        Path body = Files.createTempFile("gates-bench", ".json");
        Files.writeString(body, EVENT);
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, "-Xmx1g " + System.getProperty("bench.serverOpts", ""))) {
            long pid = server.process.pid();
            try (PlainHttp http = new PlainHttp(server.port)) {
                int status = http.put("/v1/admin/gate-policy", policy().getBytes(StandardCharsets.UTF_8)).status();
                if (status != 201) {
                    throw new IllegalStateException("the gate policy was refused: " + status);
                }
            }
            String base = "http://127.0.0.1:" + server.port;
            // Both paths run before any round is timed, so the rounds measure compiled code: without it the
            // first rounds (one connection, wrk) time the JIT compiler at work on the same 2 cores.
            for (String path : new String[] {"/v1/events", "/v1/decisions"}) {
                if (warmup > 0 && wrk != null) {
                    wrk.run(base + path, 16, warmup, Map.of("WRK_BODY_FILE", body.toString()));
                } else if (warmup > 0) {
                    own(server.port, 16, warmup, path);
                }
            }
            if (memorySeconds > 0) {
                heapLeftBehind(server.port, pid, memorySeconds);
            }
            System.out.printf(Locale.ROOT, "gates bench: %d s of warm-up per path, then %d round(s) of %d s per path and "
                    + "connection count, 20-rule policy%n%n", warmup, rounds, seconds);
            System.out.println("| client, connections | POST /v1/events p50 / p99 ms | POST /v1/decisions p50 / p99 ms | p99 ratio "
                    + "| server CPU us/request, events / decisions |");
            System.out.println("|---|---|---|---|---|");
            for (int connections : rounds > 0 ? connectionCounts : new int[0]) {
                if (wrk != null && !clients.equals("own")) {
                    List<Double> events = new ArrayList<>();
                    List<Double> decisions = new ArrayList<>();
                    List<Double> e50 = new ArrayList<>();
                    List<Double> d50 = new ArrayList<>();
                    Cpu cpu = new Cpu();
                    for (int r = 0; r < rounds; r++) {
                        for (int k = 0; k < 2; k++) {
                            boolean decision = (r + k) % 2 == 1; // events first in even rounds, decisions first in odd ones
                            long c0 = ServerProbe.cpuNanos(pid)[0];
                            Wrk.Result w = wrk.run(base + (decision ? "/v1/decisions" : "/v1/events"), connections, seconds,
                                    Map.of("WRK_BODY_FILE", body.toString()));
                            cpu.add(decision, ServerProbe.cpuNanos(pid)[0] - c0, w.requests());
                            (decision ? decisions : events).add(w.p99());
                            (decision ? d50 : e50).add(w.p50());
                        }
                    }
                    row("wrk, " + connections, e50, events, d50, decisions, cpu);
                }
                if (clients.equals("wrk")) {
                    continue;
                }
                List<Double> events = new ArrayList<>();
                List<Double> decisions = new ArrayList<>();
                List<Double> e50 = new ArrayList<>();
                List<Double> d50 = new ArrayList<>();
                Cpu cpu = new Cpu();
                for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < 2; k++) {
                        boolean decision = (r + k) % 2 == 1;
                        long c0 = ServerProbe.cpuNanos(pid)[0];
                        double[] o = own(server.port, connections, seconds, decision ? "/v1/decisions" : "/v1/events");
                        cpu.add(decision, ServerProbe.cpuNanos(pid)[0] - c0, (long) o[2]);
                        (decision ? decisions : events).add(o[1]);
                        (decision ? d50 : e50).add(o[0]);
                    }
                }
                row("own client, " + connections, e50, events, d50, decisions, cpu);
            }
        }
    }

    /**
     * What each request leaves on the server's heap: the heap used after a full collection before and
     * after {@code seconds} of decisions (16 connections, the project's client), then of events.
     */
    private static void heapLeftBehind(int port, long pid, int seconds) throws Exception {
        System.out.printf(Locale.ROOT, "heap left behind: %d s of each path at 16 connections, heap used after a full "
                + "collection before and after%n%n", seconds);
        System.out.println("| path | requests | heap before / after MB | bytes per request |");
        System.out.println("|---|---|---|---|");
        for (String path : new String[] {"/v1/decisions", "/v1/events"}) {
            long before = ServerProbe.memory(pid)[0];
            long requests = (long) own(port, 16, seconds, path)[2];
            long after = ServerProbe.memory(pid)[0];
            System.out.printf(Locale.ROOT, "| POST %s | %d | %.1f / %.1f | %.0f |%n", path, requests, before / 1e6,
                    after / 1e6, (after - before) / (double) requests);
        }
        System.out.println();
    }

    /** Server CPU time and requests, summed over the rounds of one path. */
    private static final class Cpu {
        private final long[] nanos = new long[2];
        private final long[] requests = new long[2];

        void add(boolean decision, long cpuNanos, long count) {
            nanos[decision ? 1 : 0] += cpuNanos;
            requests[decision ? 1 : 0] += count;
        }

        double microsPerRequest(boolean decision) {
            int k = decision ? 1 : 0;
            return requests[k] == 0 ? 0 : nanos[k] / 1e3 / requests[k];
        }
    }

    private static void row(String what, List<Double> e50, List<Double> e99, List<Double> d50, List<Double> d99, Cpu cpu) {
        System.out.printf(Locale.ROOT, "| %s | %.2f / %.2f | %.2f / %.2f | %.2fx (rounds: %s) | %.0f / %.0f |%n", what,
                median(e50), median(e99), median(d50), median(d99), median(d99) / median(e99),
                String.join(", ", IntStream.range(0, d99.size())
                        .mapToObj(i -> String.format(Locale.ROOT, "%.2f", d99.get(i) / e99.get(i))).toList()),
                cpu.microsPerRequest(false), cpu.microsPerRequest(true));
    }

    /** The project's own closed-loop client for {@code seconds}: p50 and p99 in ms, and the number of requests. */
    private static double[] own(int port, int clients, int seconds, String path) throws Exception {
        byte[] body = EVENT.getBytes(StandardCharsets.UTF_8);
        long until = System.nanoTime() + seconds * 1_000_000_000L;
        List<long[]> perClient = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            long[] samples = new long[2_000_000];
            perClient.add(samples);
            Thread t = new Thread(() -> {
                try (PlainHttp http = new PlainHttp(port)) {
                    int n = 1;
                    while (System.nanoTime() < until && n < samples.length) {
                        long t0 = System.nanoTime();
                        int status = http.postDroppingAnswer(path, body, "");
                        samples[n++] = System.nanoTime() - t0;
                        if (status != 201) {
                            throw new IllegalStateException(path + " answered " + status);
                        }
                    }
                    samples[0] = n - 1;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        int total = 0;
        for (long[] s : perClient) {
            total += (int) s[0];
        }
        long[] all = new long[total];
        int k = 0;
        for (long[] s : perClient) {
            System.arraycopy(s, 1, all, k, (int) s[0]);
            k += (int) s[0];
        }
        Arrays.sort(all);
        return new double[] {all[(int) (all.length * 0.50)] / 1e6, all[Math.min(all.length - 1, (int) (all.length * 0.99))] / 1e6,
            all.length};
    }

    private static String policy() {
        StringBuilder b = new StringBuilder("{\"policies\":[{\"name\":\"bench\",\"rules\":[");
        for (int i = 0; i < 20; i++) {
            b.append(i == 0 ? "" : ",").append(switch (i % 4) {
                case 0 -> "{\"name\":\"r" + i + "\",\"type\":\"rate\",\"per\":\"1m\",\"max\":1000000,\"effect\":\"ask\"}";
                case 1 -> "{\"name\":\"r" + i + "\",\"type\":\"absence\",\"when\":\"refund\",\"deny\":\"delete_" + i + "\","
                        + "\"scope\":\"session\",\"effect\":\"deny\"}";
                case 2 -> "{\"name\":\"r" + i + "\",\"type\":\"pattern\",\"for_field\":\"action_input.to\","
                        + "\"deny_pattern\":\"^blocked-" + i + "\",\"effect\":\"deny\"}";
                default -> "{\"name\":\"r" + i + "\",\"type\":\"requires\",\"for\":\"wire_" + i + "\",\"requires\":\"verify\","
                        + "\"effect\":\"deny\"}";
            });
        }
        return b.append("]}]}").toString();
    }

    private static String stringArg(String[] args, String name, String absent) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return absent;
    }

    private static int intArg(String[] args, String name, int absent) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return absent;
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        return s.get(s.size() / 2);
    }
}
