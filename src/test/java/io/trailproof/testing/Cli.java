package io.trailproof.testing;

import io.trailproof.cli.Main;
import org.apache.lucene.util.VectorUtil;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs the {@code trailproof} command. {@link #run} runs it in this JVM through {@link Main#run},
 * with standard output and error captured: the same parsing, commands and exit codes without a JVM
 * start per call. {@link #launch} starts the packaged launcher as a separate process, as a user
 * would: for what only the launcher decides (JVM options, heap limits, warnings, stream handling).
 */
public final class Cli {

    /** Where the current thread's command writes, if it runs under {@link #run}; inherited by the threads it starts. */
    private static final InheritableThreadLocal<ByteArrayOutputStream[]> CAPTURE = new InheritableThreadLocal<>();

    static {
        // Lucene prints a notice that the vector module is not added once, at its first use in a JVM
        // (the service and the commands keep it quiet through their logging set-up, which the tests'
        // JVM does not run). It is made to happen here, outside any capture, so that it is not taken
        // for the output of whichever in-process command uses Lucene first (the launcher's own runs
        // are checked as shipped).
        VectorUtil.dotProduct(new float[] {0f}, new float[] {0f});
    }

    private Cli() {
    }

    /** Exit code and what the command printed. */
    public record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    /**
     * {@code trailproof args...} in this JVM; no environment of its own (TRAILPROOF_URL etc. are not
     * read from here). What the command prints is captured per thread, so test classes that run at
     * the same time, and what they print, do not mix with it.
     */
    public static Run run(String... args) {
        routeConsole();
        ByteArrayOutputStream[] buffers = {new ByteArrayOutputStream(), new ByteArrayOutputStream()};
        ByteArrayOutputStream[] before = CAPTURE.get();
        CAPTURE.set(buffers);
        try {
            int exit = Main.run(args);
            System.out.flush();
            System.err.flush();
            return new Run(exit, buffers[0].toString(StandardCharsets.UTF_8), buffers[1].toString(StandardCharsets.UTF_8));
        } finally {
            CAPTURE.set(before);
        }
    }

    /** Once per JVM: {@link System#out} and {@link System#err} write to the capture of the writing thread, if any. */
    private static synchronized void routeConsole() {
        if (!(System.out instanceof Routed)) {
            System.setOut(new Routed(System.out, 0));
        }
        if (!(System.err instanceof Routed)) {
            System.setErr(new Routed(System.err, 1));
        }
    }

    /** A console stream that writes UTF-8 to the writing thread's capture, or else to the stream it replaced. */
    private static final class Routed extends PrintStream {

        Routed(PrintStream original, int which) {
            super(new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    target().write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    target().write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    target().flush();
                }

                private OutputStream target() {
                    ByteArrayOutputStream[] capture = CAPTURE.get();
                    return capture == null ? original : capture[which];
                }
            }, true, StandardCharsets.UTF_8);
        }
    }

    /**
     * {@code trailproof args...} through the packaged launcher in a new process, with {@code env} added
     * to its environment (TRAILPROOF_URL and TRAILPROOF_API_KEY of this process are removed). A
     * TRAILPROOF_JAVA_OPTS in {@code env} comes after the test-only options ({@link LaunchedJvm}).
     */
    public static Run launch(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ServerProcess.launcher().toString());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("trailproof-cli", ".out");
        Path err = Files.createTempFile("trailproof-cli", ".err");
        try {
            ProcessBuilder pb = ServerProcess.onTestJdk(
                    new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()));
            pb.environment().remove("TRAILPROOF_URL");
            pb.environment().remove("TRAILPROOF_API_KEY");
            pb.environment().putAll(env);
            pb.environment().put(ServerProcess.JAVA_OPTS,
                    LaunchedJvm.withOptions(env.getOrDefault(ServerProcess.JAVA_OPTS, "")));
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("trailproof " + String.join(" ", args) + " did not finish");
            }
            return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
