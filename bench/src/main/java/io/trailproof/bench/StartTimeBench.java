package io.trailproof.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The start time of the packaged distribution's commands with its start cache (the JVM's
 * ahead-of-time caches, {@code lib/trailproof.aot} and {@code lib/trailproof-server.aot}) and without
 * it ({@code TRAILPROOF_START_CACHE=off}), in the same run, rounds alternating A B B A so that drift on a shared machine hits both alike.
 * Every time is wall time from starting {@code bin/trailproof} (the launcher's own work included):
 *
 * <ul>
 *   <li>{@code trailproof --help}, to its exit;
 *   <li>{@code trailproof verify-export} of a small evidence package (an agent of 3 events), to its exit;
 *   <li>the MCP proxy: {@code trailproof mcp-proxy -- cat}, recording into a running server, with a
 *       JSON-RPC line written to its standard input at once, until the first byte of it comes back
 *       through the proxy (the line forwarded to {@code cat}, and {@code cat}'s echo forwarded back);
 *   <li>an empty server: {@code trailproof serve} on an empty data directory until {@code GET /health}
 *       answers 200 (polled every 5 ms from the start).
 * </ul>
 *
 * <p>Usage: {@code StartTimeBench [DIST] [--rounds R]} (default 10 rounds of each; prints medians and p90s).
 */
public final class StartTimeBench {

    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");
    private static final String[] KINDS = {"with the start cache", "without (TRAILPROOF_START_CACHE=off)"};
    private static final int[] ORDER = {0, 1, 1, 0};
    /** GNU time: the CPU time of a command that has ended, which Java cannot ask for. */
    private static final String TIME = "/usr/bin/time";

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, List.of("--rounds"), Set.of());
        Path dist = a.dist().toAbsolutePath();
        int rounds = a.intOption("--rounds", 10);
        Path launcher = dist.resolve("bin/trailproof");
        if (!Files.exists(dist.resolve("lib/trailproof.aot"))) {
            System.err.println("no start cache in " + dist + "/lib: run " + launcher + " start-cache first");
        }
        Path work = Files.createTempDirectory("trailproof-start-bench");
        List<String> scenarios = List.of("trailproof --help", "trailproof verify-export (3 events)",
                "mcp-proxy, first forwarded byte", "empty server to /health 200");
        double[][][] ms = new double[scenarios.size()][2][2 * rounds];
        double[][][] cpuMs = new double[scenarios.size()][2][2 * rounds];
        int[] count = new int[2];
        try (ServerUnderTest recorder = ServerUnderTest.start(dist, work.resolve("recorder"), "-Xmx256m")) {
            Path evidence = evidencePackage(launcher, recorder.port, work);
            String server = "http://127.0.0.1:" + recorder.port;
            // One unmeasured round of each: the page cache holds the jars and the cache file after it.
            for (int kind = 0; kind < 2; kind++) {
                round(launcher, kind, server, evidence, work, new double[scenarios.size()], new double[scenarios.size()]);
            }
            // Any even prefix of 0 1 1 0 0 1 1 0 ... holds as many rounds of each kind.
            for (int r = 0; r < 2 * rounds; r++) {
                int kind = ORDER[r % ORDER.length];
                double[] times = new double[scenarios.size()];
                double[] cpu = new double[scenarios.size()];
                round(launcher, kind, server, evidence, work, times, cpu);
                for (int s = 0; s < scenarios.size(); s++) {
                    ms[s][kind][count[kind]] = times[s];
                    cpuMs[s][kind][count[kind]] = cpu[s];
                }
                count[kind]++;
                System.err.printf(Locale.ROOT, "round %d (%s): %s%n", r, kind == 0 ? "cache" : "no cache",
                        Arrays.toString(Arrays.stream(times).mapToLong(Math::round).toArray()));
            }
        } finally {
            delete(work);
        }
        System.out.printf(Locale.ROOT, "%nstart times, ms, median (p90) of %d runs each, rounds alternated; %s%n", rounds,
                LoadGenerator.machine());
        System.out.printf(Locale.ROOT, "%-36s | %-24s | %-24s | %s%n", "", "with the start cache", "without", "ratio");
        for (int s = 0; s < scenarios.size(); s++) {
            double[] with = Arrays.copyOf(ms[s][0], count[0]);
            double[] without = Arrays.copyOf(ms[s][1], count[1]);
            System.out.printf(Locale.ROOT, "%-36s | %7.0f (%6.0f)           | %7.0f (%6.0f)           | %.2f%n",
                    scenarios.get(s), pct(with, 50), pct(with, 90), pct(without, 50), pct(without, 90),
                    pct(with, 50) / pct(without, 50));
        }
        System.out.printf(Locale.ROOT, "%nCPU time of the process (user + system, ms, median); steadier than wall time on a busy machine%n");
        for (int s = 0; s < scenarios.size(); s++) {
            double with = pct(Arrays.copyOf(cpuMs[s][0], count[0]), 50);
            double without = pct(Arrays.copyOf(cpuMs[s][1], count[1]), 50);
            System.out.printf(Locale.ROOT, "%-36s | %7.0f                  | %7.0f                  | %.2f%n",
                    scenarios.get(s), with, without, with / without);
        }
    }

    /** One run of each scenario with ({@code kind} 0) or without (1) the cache; their times in ms. */
    private static void round(Path launcher, int kind, String server, Path evidence, Path work, double[] times,
            double[] cpu) throws Exception {
        Map<String, String> env = kind == 0 ? Map.of() : Map.of("TRAILPROOF_START_CACHE", "off");
        times[0] = timedExit(launcher, env, cpu, 0, "--help");
        times[1] = timedExit(launcher, env, cpu, 1, "verify-export", evidence.toString());
        times[2] = proxyFirstByte(launcher, env, server, work, cpu);
        times[3] = serverToHealth(launcher, env, work, cpu);
    }

    /** Wall time to the exit; the CPU time of the process (user + system, from {@code /usr/bin/time}) into {@code cpu}. */
    private static double timedExit(Path launcher, Map<String, String> env, double[] cpu, int slot, String... args)
            throws Exception {
        Path times = Files.createTempFile("trailproof-start-bench", ".time");
        List<String> cmd = new ArrayList<>(List.of(TIME, "-f", "%U %S", "-o", times.toString(), launcher.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(cmd + " did not end");
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        if (p.exitValue() != 0) {
            throw new IllegalStateException(cmd + " exited " + p.exitValue());
        }
        String[] f = Files.readString(times).trim().split("\\s+");
        Files.delete(times);
        cpu[slot] = (Double.parseDouble(f[f.length - 2]) + Double.parseDouble(f[f.length - 1])) * 1e3;
        return ms;
    }

    private static double proxyFirstByte(Path launcher, Map<String, String> env, String server, Path work,
            double[] cpu) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "mcp-proxy", "--server", server, "--agent-id",
                "start-bench", "--", "cat").redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().putAll(env);
        pb.environment().put("TRAILPROOF_SPOOL_DIR", work.resolve("spool").toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        try {
            OutputStream in = p.getOutputStream();
            in.write("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
            InputStream out = p.getInputStream();
            if (out.read() < 0) {
                throw new IllegalStateException("the proxy forwarded nothing");
            }
            double ms = (System.nanoTime() - t0) / 1e6;
            cpu[2] = ServerProbe.cpuNanos(p.pid())[0] / 1e6;
            in.close();
            return ms;
        } finally {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    private static double serverToHealth(Path launcher, Map<String, String> env, Path work, double[] cpu)
            throws Exception {
        Path data = Files.createTempDirectory(work, "empty");
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "serve", "--port", "0", "--data-dir",
                data.toString()).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().put("TRAILPROOF_JAVA_OPTS", "-Xmx512m");
        long t0 = System.nanoTime();
        Process p = pb.start();
        try {
            int port = -1;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while (port < 0 && (line = r.readLine()) != null) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port = Integer.parseInt(m.group(1));
                    }
                }
                if (port < 0) {
                    throw new IllegalStateException("the server ended without listening");
                }
                while (true) {
                    try (PlainHttp http = new PlainHttp(port)) {
                        if (http.get("/health").status() == 200) {
                            break;
                        }
                    } catch (ConnectException e) {
                        // not accepting yet
                    }
                    Thread.sleep(5);
                }
                double ms = (System.nanoTime() - t0) / 1e6;
                cpu[3] = ServerProbe.cpuNanos(p.pid())[0] / 1e6;
                p.destroy();
                p.waitFor(60, TimeUnit.SECONDS);
                return ms;
            }
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    /** Three events of one agent stored in the running server, exported to a file with the CLI. */
    private static Path evidencePackage(Path launcher, int port, Path work) throws Exception {
        try (PlainHttp http = new PlainHttp(port)) {
            String batch = "[" + SampleEvents.event(0, "start-bench") + "," + SampleEvents.event(1, "start-bench") + ","
                    + SampleEvents.event(2, "start-bench") + "]";
            if (http.post("/v1/batch", batch.getBytes(StandardCharsets.UTF_8)).status() != 201) {
                throw new IllegalStateException("the batch was not stored");
            }
        }
        Path evidence = work.resolve("evidence.json");
        timedExit(launcher, Map.of(), new double[1], 0, "export", "--agent-id", "start-bench", "-o", evidence.toString(), "--server",
                "http://127.0.0.1:" + port);
        return evidence;
    }

    private static double pct(double[] values, int p) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s.length == 0 ? Double.NaN : s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)];
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
