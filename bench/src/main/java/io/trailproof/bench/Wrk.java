package io.trailproof.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code wrk} (Debian's package), the neutral client of the benchmarks: closed loop, keep-alive,
 * its own timing. The figures an outside engineer quotes are the ones it prints, so the load
 * generator reports them beside its own client's, measured in the same run on the same server.
 * The scenario is set by {@code bench/wrk/trailproof.lua} through environment variables.
 */
final class Wrk {

    private static final Pattern LINE = Pattern.compile("WRK requests=(\\d+) non2xx=(\\d+) errors=(\\d+) p50=([0-9.]+) "
            + "p90=([0-9.]+) p99=([0-9.]+) max=([0-9.]+)");

    /** What one wrk run measured; latencies in ms. */
    record Result(long requests, long non2xx, long errors, double seconds, double p50, double p90, double p99, double max) {
        double rate() {
            return requests / seconds;
        }
    }

    private final Path script;

    private Wrk(Path script) {
        this.script = script;
    }

    /** wrk with the project's script, or null when wrk is not installed (the neutral rows are then skipped). */
    static Wrk find(Path scriptDir) {
        Path script = scriptDir.resolve("trailproof.lua").toAbsolutePath();
        if (!Files.isRegularFile(script)) {
            return null;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, "wrk"))) {
                return new Wrk(script);
            }
        }
        return null;
    }

    /**
     * Runs wrk against {@code url} for {@code seconds} with {@code connections} connections
     * (one thread per 8 connections, at least one), with the script's environment {@code env}
     * ({@code WRK_BODY_FILE}, {@code WRK_PATHS_FILE}).
     */
    Result run(String url, int connections, int seconds, Map<String, String> env) throws IOException, InterruptedException {
        return run(List.of(), url, connections, seconds, env);
    }

    /** As {@link #run(String, int, int, Map)}, with wrk started by {@code prefix} (e.g. {@code taskset -c 0}). */
    Result run(List<String> prefix, String url, int connections, int seconds, Map<String, String> env)
            throws IOException, InterruptedException {
        int threads = Math.max(1, Math.min(2, connections / 8));
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("wrk", "-t" + threads, "-c" + connections, "-d" + seconds + "s",
                "--timeout", "30s", "-s", script.toString(), url));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        double elapsed = (System.nanoTime() - t0) / 1e9;
        Matcher m = LINE.matcher(out);
        if (!m.find()) {
            throw new IOException("wrk printed no result line:\n" + out);
        }
        Result r = new Result(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                Math.min(elapsed, seconds), Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)),
                Double.parseDouble(m.group(6)), Double.parseDouble(m.group(7)));
        if (r.non2xx() > 0 || r.errors() > 0) {
            throw new IOException("wrk saw " + r.non2xx() + " non-2xx answers and " + r.errors() + " socket errors:\n" + out);
        }
        return r;
    }
}
