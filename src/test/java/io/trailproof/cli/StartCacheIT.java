package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.ServerProcess;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * src/site/operations.md#start-cache: the launcher hands the start cache ({@code lib/trailproof.aot} to
 * a command, {@code lib/trailproof-server.aot} to the server) to the JVM only when it was recorded by
 * the very JDK the launcher runs, and a cache the JVM cannot
 * use (missing, not a cache, cut short, recorded for other jars) never stops a command or changes a
 * byte of its output. Each case runs {@code trailproof --version} as shipped (without the tests' own
 * class-data archive, which would make the launcher leave the cache out) from a copy of the
 * distribution whose jars are links to the real ones but for {@code trailproof.jar}, copied (a jar
 * of another build, as far as a cache recorded for the real one can tell); the JVM's own notes about the cache go to a
 * file (a later {@code -Xlog} wins over the launcher's {@code -Xlog:aot=off}), so the test sees that
 * the cache was handed over and refused rather than never tried.
 */
class StartCacheIT {

    private static final String VERSION = "trailproof 0.1.0";

    @TempDir
    Path dir;

    @Test
    void aMissingOrUnusableCacheNeverStopsACommandNorChangesItsOutput() throws Exception {
        Path real = ServerProcess.launcher().toAbsolutePath().getParent().getParent();
        awaitRecording(real);
        Path dist = copyOfDistribution(real);
        Path cache = dist.resolve("lib/trailproof.aot");
        Path stamp = dist.resolve("lib/trailproof.aot.jdk");
        byte[] release = Files.readAllBytes(Path.of(System.getProperty("java.home"), "release"));

        // No cache at all.
        assertPlainVersion(launch(dist, ""));

        // Not a cache, stamped with this JDK: handed to the JVM, which refuses it and starts without.
        Files.write(cache, "not an ahead-of-time cache".repeat(1000).getBytes(StandardCharsets.US_ASCII));
        Files.write(stamp, release);
        Path log = dir.resolve("garbage.log");
        assertPlainVersion(launch(dist, "-Xlog:aot=info:file=" + log));
        assertThat(Files.readString(log)).containsIgnoringCase("magic");
        assertPlainVersion(launch(dist, ""));

        // The same file stamped with another JDK: not handed over at all.
        Files.writeString(stamp, "IMPLEMENTOR=\"other\"\nJAVA_VERSION=\"24.0.1\"\n");
        Path otherJdk = dir.resolve("other-jdk.log");
        assertPlainVersion(launch(dist, "-Xlog:aot=info:file=" + otherJdk));
        assertThat(Files.exists(otherJdk) ? Files.readString(otherJdk) : "").doesNotContainIgnoringCase("magic");

        // JVM options that choose an archive of their own: the launcher leaves the cache out (the JVM
        // refuses to start with both).
        Files.write(stamp, release);
        assertPlainVersion(launch(dist, "-Xshare:auto"));

        // The real cache, recorded for the real distribution's jars: trailproof.jar is another file here,
        // newer than the cache, so the launcher leaves the stale cache out (the JVM would not notice: it
        // does not check the jars of a cache recorded in one step); and the same cut short, newer than
        // every jar, handed over and refused by the JVM.
        Path recorded = real.resolve("lib/trailproof.aot");
        assumeThat(Files.exists(recorded)).as("the build recorded a start cache (JDK 25+, not skipped)").isTrue();
        Files.copy(real.resolve("lib/trailproof.aot.jdk"), stamp, StandardCopyOption.REPLACE_EXISTING);
        Files.delete(cache);
        Files.createSymbolicLink(cache, recorded);
        Path stale = dir.resolve("stale.log");
        assertPlainVersion(launch(dist, "-Xlog:aot=info:file=" + stale));
        assertThat(Files.exists(stale) ? Files.readString(stale) : "").doesNotContain("Opened AOT cache");
        Files.delete(cache);
        try (InputStream in = Files.newInputStream(recorded)) {
            Files.write(cache, in.readNBytes(1 << 20));
        }
        assertPlainVersion(launch(dist, ""));

        // And the real distribution with its own caches: a command gets the one whose classes each
        // start links as it uses them, the server the one whose classes are linked ahead of time.
        Path used = dir.resolve("used.log");
        assertPlainVersion(launch(real, "-Xlog:aot=info:file=" + used));
        assertThat(Files.readString(used)).contains("/lib/trailproof.aot.")
                .contains("Using AOT-linked classes: false").doesNotContain("[error]");
        Path server = dir.resolve("server.log");
        Cli.Run help = launch(real, "-Xlog:aot=info:file=" + server, "serve", "--help");
        assertThat(help.exit()).as(help.toString()).isZero();
        assertThat(help.err()).as(help.toString()).isEmpty();
        assertThat(Files.readString(server)).contains("/lib/trailproof-server.aot.")
                .contains("Using AOT-linked classes: true").doesNotContain("[error]");
    }

    /**
     * A build that runs the integration tests records the start cache beside them (pom.xml, dist-bin):
     * {@code target/start-cache/} exists until then, and {@code exit} appears in it when the recording ends.
     */
    private static void awaitRecording(Path real) throws InterruptedException {
        Path recording = real.getParent().resolve("start-cache");
        if (Files.isDirectory(recording)) {
            Await.until("the build's start cache recording ended", Duration.ofMinutes(5),
                    () -> Files.exists(recording.resolve("exit")));
        }
    }

    private static void assertPlainVersion(Cli.Run run) {
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.out()).as(run.toString()).isEqualTo(VERSION + "\n");
        assertThat(run.err()).as(run.toString()).isEmpty();
    }

    /** {@code bin/trailproof} and {@code lib/trailproof.jar} copied, every other jar a link to the real one. */
    private Path copyOfDistribution(Path real) throws IOException {
        Path dist = dir.resolve("dist");
        Files.createDirectories(dist.resolve("bin"));
        Files.createDirectories(dist.resolve("lib"));
        Files.copy(real.resolve("bin/trailproof"), dist.resolve("bin/trailproof"));
        try (Stream<Path> jars = Files.list(real.resolve("lib"))) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
                Path copy = dist.resolve("lib").resolve(jar.getFileName());
                if (jar.getFileName().toString().equals("trailproof.jar")) {
                    Files.copy(jar, copy);
                } else {
                    Files.createSymbolicLink(copy, jar);
                }
            }
        }
        return dist;
    }

    /** {@code DIST/bin/trailproof --version} as shipped, with {@code javaOpts} as TRAILPROOF_JAVA_OPTS. */
    private Cli.Run launch(Path dist, String javaOpts) throws Exception {
        return launch(dist, javaOpts, "--version");
    }

    /** {@code DIST/bin/trailproof ARGS} as shipped, with {@code javaOpts} as TRAILPROOF_JAVA_OPTS. */
    private Cli.Run launch(Path dist, String javaOpts, String... args) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        List<String> command = new ArrayList<>(List.of(dist.resolve("bin/trailproof").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = ServerProcess.onTestJdkAsShipped(new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()));
        pb.environment().remove("TRAILPROOF_START_CACHE");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().putAll(Map.of("TRAILPROOF_JAVA_OPTS", javaOpts));
        Process p = pb.start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("trailproof " + String.join(" ", args) + " did not finish");
        }
        return new Cli.Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
