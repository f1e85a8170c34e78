package io.trailproof.bench;

import io.undertow.Undertow;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import org.xnio.IoUtils;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code trailproof llm-gateway} adds to a model call, against calling the upstream directly in
 * the same run (goals: at most 1 ms more at p99; the first piece of a streamed answer passed on
 * within 1 ms of its arrival).
 *
 * <p>The upstream is a fake model API in this JVM (Undertow, as fast as this machine allows): a
 * whole chat completion of about 350 bytes for each call, or, for the streaming figure, a first
 * server-sent event written at a time this JVM notes, the rest 2 ms later. Two packaged gateways
 * run in front of it, one recording into a packaged trailproof server and one with recording off
 * ({@code TRAILPROOF_ENABLED=false}).
 *
 * <ul>
 *   <li>Latency: wrk (POST of a chat request) at 1 and 16 connections, rounds alternating direct,
 *       recording gateway, pass-through gateway, then the reverse order; p50 and p99 of each.</li>
 *   <li>Or, with {@code --fixed-rate}, the same rounds at fixed rates ({@link FixedRateCalls}: an open
 *       loop whose latencies count from each call's scheduled start), {@code --loads} giving
 *       connections and calls a second of each; p50, p99, p99.9 and max of each, and the pauses each
 *       gateway's GC log records during the round. A closed loop sends less while the answers are
 *       slow, so its p99 under-samples the slow moments; a fixed rate does not. Before these rounds,
 *       {@code --warmup} seconds (default 30) of the same loads go through each path, so that the
 *       rounds time compiled code rather than the JIT at work.</li>
 *   <li>{@code --placement split} runs the trailproof server on a CPU of its own and the calls' processes
 *       (this JVM's client and fake upstream, the gateways) on the others ({@link CpuPlacement}), as
 *       deployed, where the audit server is a service apart; {@code --placement shared} (the default)
 *       leaves every process on every CPU. The bench prints the placement it used.</li>
 *   <li>{@code --baseline DIST} adds a fourth path: a pass-through gateway of another packaged build
 *       (a recording one with {@code --baseline-recording}; {@code -Dbench.gatewayOpts.baseline=...} for
 *       its JVM options), to compare two builds' CPU per call and tail in the same run.</li>
 *   <li>First piece: {@code --streams} streamed calls to each, alternating; for each, the time from
 *       the upstream's write of the first event to the client's read of it (one clock: both ends are
 *       in this JVM); p50 and p99, direct and through the gateway.</li>
 * </ul>
 *
 * <pre>
 *   bench/run-llm-gateway [--seconds S] [--streams N] [--fixed-rate [--loads C:R,...] [--warmup W]]
 *       [--placement shared|split] [--baseline DIST [--baseline-recording]]
 *       (default 10 s a round, 1,000 streams, loads 1:100,16:800, 30 s of warm-up a path, shared placement)
 * </pre>
 */
public final class LlmGatewayBench {

    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");
    static final byte[] ANSWER = ("{\"id\":\"chatcmpl-bench\",\"object\":\"chat.completion\",\"created\":1764633600,"
            + "\"model\":\"bench-model\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
            + "\"content\":\"The capital of France is Paris.\"},\"finish_reason\":\"stop\"}],"
            + "\"usage\":{\"prompt_tokens\":24,\"completion_tokens\":8,\"total_tokens\":32}}")
            .getBytes(StandardCharsets.UTF_8);
    static final String REQUEST = "{\"model\":\"bench-model\",\"messages\":[{\"role\":\"system\",\"content\":"
            + "\"You answer in one sentence.\"},{\"role\":\"user\",\"content\":\"What is the capital of France?\"}],"
            + "\"temperature\":0.2,\"max_tokens\":64}";
    private static final byte[] FIRST = ("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"bench-model\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Paris\"},\"finish_reason\":null}]}\n\n")
            .getBytes(StandardCharsets.UTF_8);
    private static final byte[] REST = ("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"model\":\"bench-model\","
            + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
            .getBytes(StandardCharsets.UTF_8);

    private final Map<String, Long> firstWritten = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, List.of("--seconds", "--streams", "--loads", "--warmup", "--placement",
                "--baseline"), Set.of("--fixed-rate", "--baseline-recording"));
        Path dist = a.dist();
        int seconds = a.intOption("--seconds", 10);
        int streams = a.intOption("--streams", 1000);
        int warmup = a.intOption("--warmup", 30);
        boolean fixedRate = a.flag("--fixed-rate");
        List<int[]> loads = loads(a.option("--loads", "1:100,16:800"));
        String baseline = a.option("--baseline", null);
        boolean baselineRecording = a.flag("--baseline-recording");
        CpuPlacement placement = CpuPlacement.of(a.option("--placement", "shared"));
        Wrk wrk = Wrk.find(Path.of("bench", "wrk"));
        if (wrk == null) {
            throw new IllegalStateException("wrk is not installed (Debian package wrk)");
        }
        Path work = Files.createTempDirectory("trailproof-llm-gateway-bench");
        Path body = work.resolve("request.json");
        Files.writeString(body, REQUEST);
        LlmGatewayBench b = new LlmGatewayBench();
        Undertow upstream = b.upstream();
        upstream.start();
        int upstreamPort = ((InetSocketAddress) upstream.getListenerInfo().get(0).getAddress()).getPort();
        try (ServerUnderTest trail = ServerUnderTest.start(placement.serverLauncher(), dist, work.resolve("data"),
                "-Xmx1g " + System.getProperty("bench.serverOpts", ""));
             Gateway recording = Gateway.start(placement, dist, upstreamPort, trail.port, work, "recording");
             Gateway passing = Gateway.start(placement, dist, upstreamPort, trail.port, work, "passing");
             Gateway before = baseline == null ? null
                     : Gateway.start(placement, Path.of(baseline), upstreamPort, trail.port, work,
                             baselineRecording ? "baseline-recording" : "baseline")) {
            String[] names = before == null ? new String[] {"direct", "gateway, recording", "gateway, recording off"}
                    : new String[] {"direct", "gateway, recording", "gateway, recording off",
                        "gateway, recording" + (baselineRecording ? ", " : " off, ") + baseline};
            int[] ports = before == null ? new int[] {upstreamPort, recording.port, passing.port}
                    : new int[] {upstreamPort, recording.port, passing.port, before.port};
            System.out.printf(Locale.ROOT, "placement %s: trailproof server on CPUs %s; client and fake model on %s; "
                    + "gateways on %s%s; load average %s%n", placement.name(), CpuPlacement.allowed(trail.pid()),
                    CpuPlacement.allowed(ProcessHandle.current().pid()), CpuPlacement.allowed(recording.process.pid()),
                    before == null ? "" : " (baseline on " + CpuPlacement.allowed(before.process.pid()) + ")",
                    Files.readString(Path.of("/proc/loadavg")).strip());
            Map<String, String> env = Map.of("WRK_BODY_FILE", body.toString());
            for (int port : ports) {
                wrk.run("http://127.0.0.1:" + port + "/v1/chat/completions", 16, Math.max(3, seconds / 2), env); // warm-up
            }
            long[] pids = before == null ? new long[] {-1, recording.process.pid(), passing.process.pid()}
                    : new long[] {-1, recording.process.pid(), passing.process.pid(), before.process.pid()};
            long serverPid = trail.process.pid();
            Path[] gcLogs = before == null ? new Path[] {null, recording.gcLog, passing.gcLog}
                    : new Path[] {null, recording.gcLog, passing.gcLog, before.gcLog};
            if (fixedRate) {
                warmUp(names, ports, pids, serverPid, loads, warmup);
                fixedRateRounds(names, ports, pids, gcLogs, serverPid, loads, seconds);
            } else {
                wrkRounds(wrk, env, names, ports, pids, serverPid, seconds);
            }
            streams(b, names, ports, streams);
        } finally {
            upstream.stop();
        }
    }

    /**
     * Until the JIT has compiled what the timed rounds run: {@code seconds} of fixed-rate calls at
     * each load through each path (the recording gateway's recorder and shipper included), printing
     * each gateway's CPU per call in the second half of its warm-up at each load: the figure the
     * timed rounds should then repeat when the warm-up was long enough.
     */
    private static void warmUp(String[] names, int[] ports, long[] pids, long serverPid, List<int[]> loads,
            int seconds) throws Exception {
        if (seconds <= 0) {
            return;
        }
        byte[] request = REQUEST.getBytes(StandardCharsets.UTF_8);
        for (int k = 0; k < names.length; k++) {
            StringBuilder cpu = new StringBuilder();
            for (int[] load : loads) {
                Duration half = Duration.ofMillis(seconds * 500L / loads.size());
                FixedRateCalls.run(ports[k], "/v1/chat/completions", request, load[0], load[1], half);
                long gateway0 = pids[k] < 0 ? 0 : ServerProbe.cpuNanos(pids[k])[0];
                FixedRateCalls.Result r = FixedRateCalls.run(ports[k], "/v1/chat/completions", request, load[0], load[1],
                        half);
                if (pids[k] >= 0) {
                    cpu.append(String.format(Locale.ROOT, " %d:%d %.0f us/call", load[0], load[1],
                            (ServerProbe.cpuNanos(pids[k])[0] - gateway0) / 1e3 / r.latencies().length));
                }
            }
            ServerProbe.awaitQuiet(serverPid);
            System.out.printf(Locale.ROOT, "warm-up, %s: %d s%s%n", names[k], seconds, cpu);
        }
    }

    /** wrk (a closed loop: each connection sends its next call when the last one is answered). */
    private static void wrkRounds(Wrk wrk, Map<String, String> env, String[] names, int[] ports, long[] pids,
            long serverPid, int seconds) throws Exception {
        System.out.printf(Locale.ROOT, "%n| wrk, POST /v1/chat/completions | connections | round | calls/s | p50 ms | p99 ms "
                + "| gateway CPU us/call | trailproof server CPU us/call |%n|---|---|---|---|---|---|---|---|%n");
        List<double[]> summary = new ArrayList<>();
        for (int connections : new int[] {1, 16}) {
            double[][] p99 = new double[names.length][2];
            double[][] p50 = new double[names.length][2];
            for (int round = 0; round < 2; round++) {
                for (int k = 0; k < names.length; k++) {
                    int target = round == 0 ? k : names.length - 1 - k;
                    ServerProbe.awaitQuiet(serverPid); // what the previous round recorded is ingested
                    long gateway0 = pids[target] < 0 ? 0 : ServerProbe.cpuNanos(pids[target])[0];
                    long server0 = ServerProbe.cpuNanos(serverPid)[0];
                    Wrk.Result r = wrk.run("http://127.0.0.1:" + ports[target] + "/v1/chat/completions", connections,
                            seconds, env);
                    if (records(names[target])) { // the recorded events of this round reach the server
                        ServerProbe.awaitQuiet(serverPid); // the recorded events of this round reach the server
                    }
                    double gatewayCpu = pids[target] < 0 ? 0
                            : (ServerProbe.cpuNanos(pids[target])[0] - gateway0) / 1e3 / r.requests();
                    double serverCpu = (ServerProbe.cpuNanos(serverPid)[0] - server0) / 1e3 / r.requests();
                    p50[target][round] = r.p50();
                    p99[target][round] = r.p99();
                    System.out.printf(Locale.ROOT, "| %s | %d | %d | %,.0f | %.3f | %.3f | %s | %.0f |%n", names[target],
                            connections, round + 1, r.rate(), r.p50(), r.p99(),
                            pids[target] < 0 ? "" : String.format(Locale.ROOT, "%.0f", gatewayCpu), serverCpu);
                }
            }
            summary.add(new double[] {connections, mean(p50[0]), mean(p99[0]), mean(p50[1]), mean(p99[1]),
                    mean(p50[2]), mean(p99[2])});
        }
        System.out.printf(Locale.ROOT, "%n| connections | direct p50 / p99 ms | gateway recording p50 / p99 ms | added p99 ms "
                + "| gateway recording off p50 / p99 ms | added p99 ms | goal |%n|---|---|---|---|---|---|---|%n");
        for (double[] s : summary) {
            System.out.printf(Locale.ROOT, "| %.0f | %.3f / %.3f | %.3f / %.3f | %+.3f | %.3f / %.3f | %+.3f | <= +1 ms |%n",
                    s[0], s[1], s[2], s[3], s[4], s[4] - s[2], s[5], s[6], s[6] - s[2]);
        }
    }

    /** The first event of a stream: the time from the upstream's write to the client's read, each path alternated. */
    private static void streams(LlmGatewayBench b, String[] names, int[] ports, int streams) throws Exception {
        long[][] delays = new long[names.length][streams];
        for (int i = 0; i < 50; i++) { // warm-up
            for (int port : ports) {
                b.firstPieceDelay(port, "w" + i + "-" + port);
            }
        }
        for (int i = 0; i < streams; i++) {
            for (int k = 0; k < names.length; k++) {
                int target = i % 2 == 0 ? k : names.length - 1 - k;
                delays[target][i] = b.firstPieceDelay(ports[target], i + "-" + target);
            }
        }
        System.out.printf(Locale.ROOT, "%n| first event of a stream, upstream write to client read | p50 us | p99 us | "
                + "added p50 us | added p99 us | goal |%n|---|---|---|---|---|---|%n");
        for (int k = 0; k < names.length; k++) {
            Arrays.sort(delays[k]);
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %+.0f | %+.0f | %s |%n", names[k],
                    pct(delays[k], 50) / 1e3, pct(delays[k], 99) / 1e3, (pct(delays[k], 50) - pct(delays[0], 50)) / 1e3,
                    (pct(delays[k], 99) - pct(delays[0], 99)) / 1e3, k == 0 ? "" : "added <= 1,000 us");
        }
    }

    /**
     * Fixed-rate rounds ({@link FixedRateCalls}: an open loop, latency from each call's scheduled start):
     * for each load, rounds alternating direct, recording gateway, pass-through gateway, then the
     * reverse order; p50, p99, p99.9 and max of each, and what each gateway adds to the direct p99.
     */
    private static void fixedRateRounds(String[] names, int[] ports, long[] pids, Path[] gcLogs, long serverPid,
            List<int[]> loads, int seconds) throws Exception {
        byte[] request = REQUEST.getBytes(StandardCharsets.UTF_8);
        System.out.printf(Locale.ROOT, "%n| fixed rate, POST /v1/chat/completions | connections | calls/s asked | round "
                + "| calls/s | p50 ms | p99 ms | p99.9 ms | max ms | sent > 1 ms late | gateway CPU us/call "
                + "| trailproof server CPU us/call | gateway GC pauses, longest ms |%n"
                + "|---|---|---|---|---|---|---|---|---|---|---|---|---|%n");
        List<double[]> summary = new ArrayList<>();
        for (int[] load : loads) {
            int connections = load[0];
            int rate = load[1];
            int n = names.length;
            double[][] p50 = new double[n][2];
            double[][] p99 = new double[n][2];
            double[][] p999 = new double[n][2];
            double[][] cpu = new double[n][2];
            for (int round = 0; round < 2; round++) {
                for (int k = 0; k < n; k++) {
                    int target = round == 0 ? k : n - 1 - k;
                    ServerProbe.awaitQuiet(serverPid);
                    long gateway0 = pids[target] < 0 ? 0 : ServerProbe.cpuNanos(pids[target])[0];
                    long server0 = ServerProbe.cpuNanos(serverPid)[0];
                    GcPauses gc = gcLogs[target] == null ? null : GcPauses.from(gcLogs[target]);
                    FixedRateCalls.Result r = FixedRateCalls.run(ports[target], "/v1/chat/completions", request,
                            connections, rate, Duration.ofSeconds(seconds));
                    if (r.errors() > 0) {
                        throw new IllegalStateException(names[target] + ": " + r.errors() + " calls failed");
                    }
                    if (records(names[target])) { // the recorded events of this round reach the server
                        ServerProbe.awaitQuiet(serverPid);
                    }
                    int calls = r.latencies().length;
                    double gatewayCpu = pids[target] < 0 ? 0
                            : (ServerProbe.cpuNanos(pids[target])[0] - gateway0) / 1e3 / calls;
                    double serverCpu = (ServerProbe.cpuNanos(serverPid)[0] - server0) / 1e3 / calls;
                    p50[target][round] = r.ms(50);
                    p99[target][round] = r.ms(99);
                    p999[target][round] = r.ms(99.9);
                    cpu[target][round] = gatewayCpu;
                    GcPauses.Seen pauses = gc == null ? null : gc.since();
                    System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %,.0f | %.3f | %.3f | %.3f | %.3f | %d | %s | %.0f | %s |%n",
                            names[target], connections, rate, round + 1, r.rate(), r.ms(50), r.ms(99), r.ms(99.9), r.maxMs(),
                            r.late(), pids[target] < 0 ? "" : String.format(Locale.ROOT, "%.0f", gatewayCpu), serverCpu,
                            pauses == null ? "" : String.format(Locale.ROOT, "%d, %.1f", pauses.count(), pauses.longestMs()));
                }
            }
            summary.add(new double[] {connections, rate, mean(p50[0]), mean(p99[0]), mean(p999[0]), mean(p50[1]),
                mean(p99[1]), mean(p999[1]), mean(p50[2]), mean(p99[2]), mean(p999[2]), mean(cpu[1]), mean(cpu[2]),
                n > 3 ? mean(p50[3]) : 0, n > 3 ? mean(p99[3]) : 0, n > 3 ? mean(p999[3]) : 0, n > 3 ? mean(cpu[3]) : 0});
        }
        System.out.printf(Locale.ROOT, "%n| connections | calls/s | direct p50 / p99 / p99.9 ms | gateway recording "
                + "p50 / p99 / p99.9 ms | added p99 ms | gateway recording off p50 / p99 / p99.9 ms | added p99 ms | goal |"
                + "%n|---|---|---|---|---|---|---|---|%n");
        for (double[] s : summary) {
            System.out.printf(Locale.ROOT, "| %.0f | %.0f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f | %+.3f "
                    + "| %.3f / %.3f / %.3f | %+.3f | <= +1 ms |%n", s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7],
                    s[6] - s[3], s[8], s[9], s[10], s[9] - s[3]);
        }
        System.out.printf(Locale.ROOT, "%n| connections | calls/s | gateway CPU us/call, recording | recording off%s |%n"
                + "|---|---|---|---|%s%n", names.length > 3 ? " | " + names[3] + " p50 / p99 / p99.9 ms | its added p99 ms "
                + "| its CPU us/call" : "", names.length > 3 ? "---|---|---|" : "");
        for (double[] s : summary) {
            System.out.printf(Locale.ROOT, "| %.0f | %.0f | %.0f | %.0f |%s%n", s[0], s[1], s[11], s[12], names.length > 3
                    ? String.format(Locale.ROOT, " %.3f / %.3f / %.3f | %+.3f | %.0f |", s[13], s[14], s[15], s[14] - s[3], s[16])
                    : "");
        }
    }

    /** Whether the path of that name records into the server (a recording gateway of this build or the baseline's). */
    private static boolean records(String name) {
        return name.startsWith("gateway, recording") && !name.startsWith("gateway, recording off");
    }

    /** {@code "1:100,16:800"}: connections and calls a second of each fixed-rate load. */
    private static List<int[]> loads(String spec) {
        List<int[]> out = new ArrayList<>();
        for (String part : spec.split(",")) {
            String[] cr = part.strip().split(":");
            if (cr.length != 2) {
                throw new IllegalArgumentException("--loads takes connections:calls-per-second pairs, got " + part);
            }
            out.add(new int[] {Integer.parseInt(cr[0]), Integer.parseInt(cr[1])});
        }
        return out;
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(0);
    }

    private static long pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * p / 100.0) - 1)];
    }

    /** The fake model API: a whole answer on the I/O thread, or a stream on a worker when asked. */
    private Undertow upstream() {
        return Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(ex -> {
            String id = ex.getRequestHeaders().getFirst("X-Bench-Stream");
            if (id == null) {
                ex.getRequestReceiver().receiveFullBytes((e, bytes) -> {
                    e.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
                    e.getResponseSender().send(ByteBuffer.wrap(ANSWER));
                });
                return;
            }
            ex.dispatch(() -> stream(ex, id));
        }).build();
    }

    private void stream(HttpServerExchange ex, String id) {
        ex.startBlocking();
        try {
            ex.getInputStream().readAllBytes();
            ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/event-stream");
            OutputStream out = ex.getOutputStream();
            firstWritten.put(id, System.nanoTime());
            out.write(FIRST);
            out.flush();
            Thread.sleep(2);
            out.write(REST);
            out.close();
        } catch (IOException | InterruptedException e) {
            IoUtils.safeClose(ex.getConnection());
        }
    }

    /** One streamed call on a new connection: nanoseconds from the upstream's first write to reading it here. */
    private long firstPieceDelay(int port, String id) throws IOException {
        byte[] body = REQUEST.replace("\"max_tokens\":64", "\"max_tokens\":64,\"stream\":true").getBytes(StandardCharsets.UTF_8);
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "X-Bench-Stream: " + id + "\r\nConnection: close\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] buffer = new byte[8192];
            StringBuilder seen = new StringBuilder();
            long read = 0;
            while (true) {
                int n = in.read(buffer);
                if (n < 0) {
                    throw new IOException("the stream ended before its first event: " + seen);
                }
                seen.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                if (seen.indexOf("\"Paris\"") >= 0) {
                    read = System.nanoTime();
                    break;
                }
            }
            in.readAllBytes();
            Long written = firstWritten.remove(id);
            if (written == null) {
                throw new IOException("the upstream did not note stream " + id);
            }
            return read - written;
        }
    }

    /** A packaged gateway process. */
    private record Gateway(Process process, int port, Path gcLog) implements AutoCloseable {

        /**
         * A gateway of {@code dist} on the calls' CPUs, spooling into {@code work}/spool, its GC log in
         * {@code work}: {@code role} is {@code recording}, or {@code passing} or {@code baseline} (recording off).
         */
        static Gateway start(CpuPlacement placement, Path dist, int upstreamPort, int serverPort, Path work, String role)
                throws IOException, InterruptedException {
            boolean recording = role.equals("recording") || role.equals("baseline-recording");
            List<String> command = new ArrayList<>(placement.callsLauncher());
            command.addAll(List.of(dist.resolve("bin/trailproof").toString(), "llm-gateway", "--upstream",
                    "http://127.0.0.1:" + upstreamPort, "--listen", "127.0.0.1:0", "--server",
                    "http://127.0.0.1:" + serverPort, "--agent-id", "bench-agent"));
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            Path gcLog = work.resolve("gateway-gc-" + role + ".log");
            pb.environment().put("TRAILPROOF_SPOOL_DIR", work.resolve("spool").toString());
            pb.environment().put("TRAILPROOF_ENABLED", Boolean.toString(recording));
            pb.environment().put("TRAILPROOF_JAVA_OPTS", "-Xmx512m -Xlog:gc:file=" + gcLog + " "
                    + System.getProperty(role.startsWith("baseline") ? "bench.gatewayOpts.baseline"
                            : "bench.gatewayOpts." + recording, ""));
            Process p = pb.start();
            CompletableFuture<Integer> port = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = r.readLine(); line != null; line = r.readLine()) {
                        Matcher m = LISTENING.matcher(line);
                        if (m.find()) {
                            port.complete(Integer.parseInt(m.group(1)));
                        } else if (!line.isBlank()) {
                            System.err.println("gateway: " + line);
                        }
                    }
                } catch (IOException ended) {
                    // the process ended
                }
                port.complete(-1);
            });
            reader.setDaemon(true);
            reader.start();
            try {
                int bound = port.get(120, TimeUnit.SECONDS);
                if (bound < 0) {
                    throw new IOException("the gateway ended at start");
                }
                return new Gateway(p, bound, gcLog);
            } catch (ExecutionException | TimeoutException e) {
                p.destroyForcibly();
                throw new IOException("the gateway did not start", e);
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
