package io.trailproof.testing;

import java.time.Duration;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real service as a separate process, started through the packaged launcher
 * ({@code target/trailproof/bin/trailproof serve}) on a free port, for tests that stop or kill it.
 */
public final class ServerProcess implements AutoCloseable {

    /** The launcher's variable of extra JVM options (src/site/cli.md). */
    static final String JAVA_OPTS = "TRAILPROOF_JAVA_OPTS";

    private static final Pattern LISTENING = Pattern.compile("listening on http://[^:]+:(\\d+)");

    private final Process process;
    private final int port;
    private final StringBuffer output = new StringBuffer();
    private StringBuffer everything;
    private Thread reader;

    private ServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    public static Path launcher() {
        String dist = System.getProperty("trailproof.dist", "target/trailproof");
        Path bin = Path.of(dist, "bin", "trailproof");
        if (!Files.isExecutable(bin)) {
            throw new IllegalStateException(bin + " is missing: run the integration tests through 'mvn verify'");
        }
        return bin;
    }

    /**
     * Prepares a command started through the packaged launcher (or a script that calls it) for the
     * tests: JAVA_HOME is the JDK running the tests, which is 21 or newer, so the launcher takes it
     * first (src/site/cli.md) and the archive of {@link LaunchedJvm} fits; TRAILPROOF_JAVA_OPTS holds the test-only JVM options ({@link LaunchedJvm}). Returns
     * {@code pb}; what is put into its environment afterwards wins, so a test that sets
     * TRAILPROOF_JAVA_OPTS itself passes its options through {@link LaunchedJvm#withOptions}.
     */
    public static ProcessBuilder onTestJdk(ProcessBuilder pb) {
        pb.environment().put(JAVA_OPTS, LaunchedJvm.withOptions(""));
        return withTestJavaHome(pb);
    }

    /**
     * As {@link #onTestJdk}, without the test-only JVM options: the process runs as shipped, for tests
     * of what a user sees (a warning the test-only options would cause is not the product's).
     */
    public static ProcessBuilder onTestJdkAsShipped(ProcessBuilder pb) {
        return withTestJavaHome(pb);
    }

    private static ProcessBuilder withTestJavaHome(ProcessBuilder pb) {
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return pb;
    }

    /** Starts {@code trailproof serve --port 0 --data-dir DIR extra...} and waits until it listens. */
    public static ServerProcess start(Path dataDir, String... extra) throws IOException, InterruptedException {
        return start(dataDir, Map.of(), extra);
    }

    /**
     * As {@link #start(Path, String...)}, with extra environment variables. A TRAILPROOF_JAVA_OPTS among
     * them comes after the test-only options ({@link LaunchedJvm}); without one the heap is 512 MB.
     */
    public static ServerProcess start(Path dataDir, Map<String, String> env, String... extra)
            throws IOException, InterruptedException {
        return start(dataDir, env, true, extra);
    }

    /**
     * As {@link #start(Path, Map, String...)}, but the JVM gets the launcher's options and the test's
     * own only, as a user's would: for what the tests check about the start as shipped.
     */
    public static ServerProcess startAsShipped(Path dataDir, Map<String, String> env, String... extra)
            throws IOException, InterruptedException {
        return start(dataDir, env, false, extra);
    }

    private static ServerProcess start(Path dataDir, Map<String, String> env, boolean testOptions, String... extra)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(launcher().toString(), "serve", "--port", "0", "--data-dir",
                dataDir.toString()));
        cmd.addAll(List.of(extra));
        ProcessBuilder pb = withTestJavaHome(new ProcessBuilder(cmd).redirectErrorStream(true));
        pb.environment().putAll(env);
        String own = env.getOrDefault(JAVA_OPTS, "-Xmx512m");
        pb.environment().put(JAVA_OPTS, testOptions ? LaunchedJvm.withOptions(own) : own);
        Process p = pb.start();
        BlockingQueue<Integer> ports = new LinkedBlockingQueue<>();
        StringBuffer out = new StringBuffer();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    out.append(line).append('\n');
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        ports.add(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
            ports.add(-1);
        }, "server-output");
        reader.setDaemon(true);
        reader.start();
        Integer port = ports.poll(60, TimeUnit.SECONDS);
        if (port == null || port < 0) {
            p.destroyForcibly();
            throw new IOException("server did not start:\n" + out);
        }
        ServerProcess sp = new ServerProcess(p, port);
        sp.output.append(out);
        sp.everything = out;
        sp.reader = reader;
        return sp;
    }

    public int port() {
        return port;
    }

    /** What the process printed up to and including its "listening" line. */
    public String startupOutput() {
        return output.toString();
    }

    /**
     * SIGTERM, then everything the process printed (standard output and error) until its output
     * ended. Unlike {@link #stop}, the output stays readable while it stops ({@code Process.destroy}
     * closes the streams).
     */
    public String stopAndCollectOutput() throws InterruptedException {
        process.toHandle().destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("server did not stop on SIGTERM");
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        return everything.toString();
    }

    /** Waits until the process has printed {@code text} (anywhere in its output so far); false on timeout or exit. */
    public boolean awaitOutput(String text, long timeoutMillis) throws Exception {
        Await.within(Duration.ofMillis(timeoutMillis), () -> everything.indexOf(text) >= 0 || !process.isAlive());
        return everything.indexOf(text) >= 0;
    }

    /** Everything the process printed so far. */
    public String outputSoFar() {
        return everything.toString();
    }

    public Api api() {
        return new Api(port);
    }

    public Process process() {
        return process;
    }

    /** SIGKILL: the process gets no chance to flush or checkpoint. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then waits for the exit code. */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("server did not stop on SIGTERM");
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
