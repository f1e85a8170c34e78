package io.trailproof.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The JVM options of every process the tests start through the packaged launcher
 * (src/site/testing.md#launched-processes). The integration tests start some hundreds of these
 * (crash tests restart a server every cycle, commands run as a user runs them), most of them for
 * seconds, so their start-up dominates: these options cut what it costs in CPU, and only for the
 * tests. The product's own defaults stay as shipped.
 *
 * <p>They go before the test's own {@code TRAILPROOF_JAVA_OPTS} (of two equal options the later wins),
 * and none of them changes what a test checks: the heap limit and the collector are the test's, the
 * code is the same (compiled by C1 only), and a process killed with kill -9 dies the same way.
 */
public final class LaunchedJvm {

    /**
     * The quick compiler only: a process that lives for seconds spent most of its compile time in C2 on
     * code that ran a few thousand times during start-up. Measured: a server's start and stop cost
     * 1.9 CPU-seconds with it, 2.3 with C2's thresholds ten times the default, 4.0 as shipped.
     * {@code LauncherIT} checks the start as shipped, without these options.
     */
    static final String QUICK_COMPILER = "-XX:TieredStopAtLevel=1";

    /**
     * The JVM options of the tests' own helper programs started from the test class path (an MCP server
     * for the proxy, the proxy's main class, a lock holder): short-lived, small, and not the product as
     * users run it, so the quick compiler only and the serial collector, which cost the least CPU to
     * start. (The launched product processes keep the default collector, which the memory tests are about.)
     */
    public static final List<String> HELPER = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static String options;

    private LaunchedJvm() {
    }

    /** The test-only options, then {@code own} (the test's own TRAILPROOF_JAVA_OPTS, may be empty). */
    public static String withOptions(String own) {
        return own.isBlank() ? options() : options() + " " + own.strip();
    }

    /**
     * The test-only options: {@link #QUICK_COMPILER}, and a class-data archive of the distribution's classes
     * (AppCDS) that launched processes map instead of loading and verifying the same classes from the
     * jars again. The archive is written by a server started and stopped once ({@link #train}) before
     * the first launch that needs it, so it holds what a server loads (a command loads a part of that).
     * The JVM checks the archive against the class path and the JDK on every start; with
     * {@code AutoCreateSharedArchive}, one that no longer fits is ignored and written anew by the next
     * process to exit normally (a process killed with kill -9 writes nothing), and a writer replaces the
     * file rather than changing it in place, so processes mapping it are unaffected. The archive's log
     * lines (classes it cannot hold, an archive that does not fit) are off: they are no output of the
     * product's.
     */
    static synchronized String options() {
        String o = options;
        if (o == null) {
            Path archive = archive();
            o = archive == null ? QUICK_COMPILER
                    : QUICK_COMPILER + " -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=" + archive + " -Xlog:cds*=off";
            if (archive != null) {
                train(archive, o);
            }
            options = o;
        }
        return o;
    }

    /**
     * {@code target/launched-jvm/<JDK version>.jsa} next to the distribution, one per JDK so that tests
     * on two JDKs do not rewrite each other's; none where the path has a space (the launcher splits
     * TRAILPROOF_JAVA_OPTS on spaces).
     */
    private static Path archive() {
        Path dir = ServerProcess.launcher().toAbsolutePath().getParent().getParent().resolveSibling("launched-jvm");
        Path file = dir.resolve(Runtime.version().toString().replaceAll("[^A-Za-z0-9.+-]", "_") + ".jsa");
        if (file.toString().contains(" ")) {
            return null;
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /**
     * Unless the archive is newer than every jar of the distribution: starts a server with
     * {@code opts}, writes an event and searches, and stops it, so that it writes the archive as it
     * exits. A training that fails leaves the tests to run without the archive, or with the one the
     * first process to exit normally writes; the tests themselves see the failure if there is one.
     */
    private static void train(Path archive, String opts) {
        try {
            if (Files.exists(archive) && newerThanJars(archive)) {
                return;
            }
            Files.deleteIfExists(archive);
            Path data = Files.createTempDirectory("launched-jvm");
            try (ServerProcess server = ServerProcess.startAsShipped(data.resolve("data"),
                    Map.of(ServerProcess.JAVA_OPTS, opts + " -Xmx512m"))) {
                server.api().post("/v1/events", "{\"agent_id\":\"archive\",\"action_type\":\"TOOL_CALL\"}");
                server.api().get("/v1/search?q=archive");
                server.stop();
            } finally {
                deleteTree(data);
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            System.err.println("the class-data archive of launched JVMs was not written: " + e);
        }
    }

    private static boolean newerThanJars(Path archive) throws IOException {
        FileTime written = Files.getLastModifiedTime(archive);
        Path lib = ServerProcess.launcher().toAbsolutePath().getParent().resolveSibling("lib");
        try (Stream<Path> jars = Files.list(lib)) {
            return jars.allMatch(jar -> {
                try {
                    return Files.getLastModifiedTime(jar).compareTo(written) < 0;
                } catch (IOException e) {
                    return false;
                }
            });
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
