package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.OperatingSystemMXBean;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.policy.BuiltinPolicies;
import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEventReader;
import io.trailproof.core.policy.PolicyReport;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The built-in policy check over a large trail: events/s (goal at least 200,000/s at
 * 1,000,000 events) and the peak heap (goal: the check runs in {@code -Xmx256m}). The check is the
 * one {@code POST /v1/policy/check} runs ({@link Ledger#checkPolicies}); only the JSON answer, a few
 * kilobytes, is left out. Two steps, so that the check runs in a JVM of its own with the small heap:
 *
 * <pre>
 * java -Xmx1g   -cp ... io.trailproof.bench.PolicyCheckBench --mode fill --data DIR [--events N]
 * java -Xmx256m -cp ... io.trailproof.bench.PolicyCheckBench --mode check --data DIR [--rounds R]
 * java          -cp ... io.trailproof.bench.PolicyCheckBench --mode http --data DIR [--dist DIST] [--rounds R]
 * </pre>
 *
 * {@code fill} writes events of about 500 bytes ({@link SampleEvents}) for 1,000 agents, each
 * {@code TOOL_CALL} answered by a {@code TOOL_RESULT}, one in 200 sessions with an error burst and a
 * few slow calls, so every built-in rule has work and some violations. {@code check} prints, per
 * round, three passes that split where the time goes: reading the log alone, reading it and
 * extracting the fields rules look at, and the whole built-in check (which also re-hashes every
 * event for {@code chain_integrity}). {@code http} starts the packaged server (DIST, default {@code target/trailproof}) on the filled
 * directory in {@code -Xmx256m}, waits until its start-up re-verification is over, and times
 * {@code POST /v1/policy/check} with no body (the built-ins) end to end: the HTTP path, with the
 * server's CPU time per event (from {@code /proc}) and its heap after the rounds.
 */
public final class PolicyCheckBench {

    private static final int AGENTS = 1000;
    private static final int BATCH = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private PolicyCheckBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parseOptions(args, "--mode", "--data", "--events", "--rounds", "--dist");
        String mode = a.required("--mode");
        Path data = Path.of(a.required("--data"));
        switch (mode) {
            case "fill" -> fill(data, a.longOption("--events", 1_000_000));
            case "check" -> check(data, a.intOption("--rounds", 3));
            case "http" -> http(a.pathOption("--dist", Path.of("target/trailproof")), data, a.intOption("--rounds", 3));
            default -> throw new IllegalArgumentException("--mode is fill, check or http, not " + mode);
        }
    }

    private static void fill(Path data, long events) throws Exception {
        long t0 = System.nanoTime();
        try (Ledger ledger = Ledger.open(data, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom())) {
            for (long next = ledger.size(); next < events; ) {
                int n = (int) Math.min(BATCH, events - next);
                ledger.append(batch(next, n));
                next += n;
            }
            System.out.printf(Locale.ROOT, "filled %s to %,d events in %.1f s%n", data, ledger.size(),
                    (System.nanoTime() - t0) / 1e9);
        }
    }

    /** Event k: agent k % 1000; calls and results alternate per agent; timestamps a second apart per agent. */
    private static List<ObjectNode> batch(long first, int n) throws Exception {
        List<ObjectNode> out = new ArrayList<>(n);
        Instant base = Instant.parse("2026-01-05T00:00:00Z");
        for (int i = 0; i < n; i++) {
            long k = first + i;
            long perAgent = k / AGENTS;
            ObjectNode e = (ObjectNode) JSON.readTree(SampleEvents.event(k, "agent-" + (k % AGENTS)));
            e.put("session_id", "s-" + (perAgent / 50));
            e.put("action_type", perAgent % 2 == 0 ? "TOOL_CALL" : "TOOL_RESULT");
            e.put("timestamp", base.plusSeconds(perAgent).toString());
            if ((perAgent / 50) % 200 == 7) {
                e.put("action_status", "error");
            }
            if (k % 100_003 == 0) {
                e.put("duration_ms", 90_000);
            }
            out.add(EventValidator.validate(e));
        }
        return out;
    }

    private static void check(Path data, int rounds) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (Ledger ledger = Ledger.open(data, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom())) {
            long size = ledger.size();
            List<Policy> builtins = BuiltinPolicies.all();
            System.out.printf(Locale.ROOT, "%,d events, max heap %d MB%n", size, Runtime.getRuntime().maxMemory() >> 20);
            for (int round = 1; round <= rounds; round++) {
                System.gc();
                resetPeaks();
                long wall = System.nanoTime();
                long cpu = threads.getCurrentThreadCpuTime();
                long[] bytes = {0};
                ledger.scan(0, size, (i, payload) -> bytes[0] += payload.length);
                report(round, "read the log", size, wall, cpu, threads);

                PolicyEventReader reader = new PolicyEventReader(Set.of());
                wall = System.nanoTime();
                cpu = threads.getCurrentThreadCpuTime();
                long[] sum = {0};
                ledger.scan(0, size, (i, payload) -> sum[0] += reader.read(payload).sequence());
                report(round, "read + extract fields", size, wall, cpu, threads);

                wall = System.nanoTime();
                cpu = threads.getCurrentThreadCpuTime();
                long processCpu = processCpuNanos();
                PolicyReport r = ledger.checkPolicies(builtins, null, null, null);
                report(round, "built-in check", size, wall, cpu, threads);
                System.out.printf(Locale.ROOT, "    all threads of the check: cpu %.2f us an event%n",
                        (processCpuNanos() - processCpu) / 1e3 / size);
                StringBuilder v = new StringBuilder();
                r.results().forEach(x -> v.append(x.rule()).append('=').append(x.violations()).append(' '));
                System.out.printf(Locale.ROOT, "    passed=%s, violations: %s(%.0f bytes an event), peak heap used %d MB%n",
                        r.passed(), v, (double) bytes[0] / size, peakHeap() >> 20);
            }
        }
    }

    private static void http(Path dist, Path data, int rounds) throws Exception {
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, "-Xmx256m")) {
            ServerProbe.awaitQuiet(server.pid()); // the start-up re-verification of every chain
            HttpClient client = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + server.port + "/v1/policy/check");
            for (int round = 1; round <= rounds; round++) {
                long cpu = ServerProbe.cpuNanos(server.pid())[0];
                long wall = System.nanoTime();
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri)
                        .POST(HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                double seconds = (System.nanoTime() - wall) / 1e9;
                double cpuSeconds = (ServerProbe.cpuNanos(server.pid())[0] - cpu) / 1e9;
                var answer = JSON.readTree(r.body());
                long events = answer.path("events_checked").asLong();
                System.out.printf(Locale.ROOT, "round %d POST /v1/policy/check: HTTP %d, %,d events in %.2f s, "
                                + "%,.0f events/s, server cpu %.2f s (%.2f us an event), passed=%s%n", round, r.statusCode(),
                        events, seconds, events / seconds, cpuSeconds, cpuSeconds * 1e6 / Math.max(1, events),
                        answer.path("passed").asBoolean());
            }
            long[] memory = ServerProbe.memory(server.pid());
            System.out.printf(Locale.ROOT, "server in -Xmx256m: heap used after a full GC %d MB, RSS %d MB%n",
                    memory[0] >> 20, memory[1] >> 20);
            server.stop();
        }
        System.exit(0); // the HTTP client's threads would keep the JVM alive
    }

    private static void report(int round, String what, long events, long wall, long cpu, ThreadMXBean threads) {
        double seconds = (System.nanoTime() - wall) / 1e9;
        double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
        System.out.printf(Locale.ROOT, "round %d %-22s %6.2f s  %,10.0f events/s  cpu %.2f s (%.2f us an event)%n",
                round, what, seconds, events / seconds, cpuSeconds, cpuSeconds * 1e6 / events);
    }

    /** CPU time of this whole JVM: the check's parse threads included (and the JIT's and GC's). */
    private static long processCpuNanos() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** The sum of the heap pools' peak use since the last reset: garbage included, so an upper bound. */
    private static long peakHeap() {
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        return peak;
    }
}
