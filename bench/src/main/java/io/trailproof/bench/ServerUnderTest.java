package io.trailproof.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The real server started from the packaged distribution, as an operator would run it. */
final class ServerUnderTest implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");

    final Process process;
    final int port;
    /** Nanoseconds from process start until it printed that it listens. */
    final long startNanos;

    private ServerUnderTest(Process process, int port, long startNanos) {
        this.process = process;
        this.port = port;
        this.startNanos = startNanos;
    }

    static ServerUnderTest start(Path dist, Path dataDir, String javaOpts, String... extra) throws IOException, InterruptedException {
        return start(List.of(), dist, dataDir, javaOpts, extra);
    }

    /** As {@link #start(Path, Path, String, String...)}, the command run through {@code launcher} (for example {@code taskset -c 0}). */
    static ServerUnderTest start(List<String> launcher, Path dist, Path dataDir, String javaOpts, String... extra)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(launcher);
        cmd.addAll(List.of(dist.resolve("bin/trailproof").toString(), "serve", "--port", "0",
                "--data-dir", dataDir.toString()));
        cmd.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("TRAILPROOF_JAVA_OPTS", javaOpts);
        long t0 = System.nanoTime();
        Process p = pb.start();
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Path log = Files.createTempFile("trailproof-bench-server", ".log");
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    Files.writeString(log, line + "\n", StandardOpenOption.APPEND);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException ignored) {
                // process ended
            }
            port.complete(-1);
        });
        reader.setDaemon(true);
        reader.start();
        int bound;
        try {
            bound = port.get(300, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.destroyForcibly();
            throw new IOException("server did not start; its output is in " + log, e);
        }
        if (bound < 0) {
            throw new IOException("server exited at start; its output is in " + log);
        }
        return new ServerUnderTest(p, bound, System.nanoTime() - t0);
    }

    long pid() {
        return process.pid();
    }

    void stop() throws InterruptedException {
        process.destroy();
        process.waitFor(120, TimeUnit.SECONDS);
    }

    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            stop(); // a clean stop, so that a recording asked for in bench.serverOpts is written
        }
        if (process.isAlive()) {
            kill();
        }
    }
}
