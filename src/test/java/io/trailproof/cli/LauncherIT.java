package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Cli;
import io.trailproof.testing.KafkaTestCluster;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import io.trailproof.testing.SharedKafka;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * src/site/operations.md#start-output and #logs: the packaged launcher starts the JVM without warnings, with Lucene's
 * native access enabled and no module added, and the program's own messages reach standard error
 * complete and in order. Nothing is printed outside the log
 * format, cluster mode included (the Kafka client's SLF4J goes through the service's logging), and
 * the commands an administrator runs print their own output only: library INFO lines belong in the
 * server's log.
 */
@ExtendWith(SharedKafka.class)
@Order(RunOrder.SHARED_KAFKA)
class LauncherIT {

    /** A text-format record: {@code <UTC time> <LEVEL> <logger>: <message>}. */
    private static final Pattern TEXT_RECORD =
            Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z (ERROR|WARN|INFO|DEBUG|TRACE) \\S+: .*");
    /** A record of the one-line format commands use for warnings (set by Main), at a level below WARNING. */
    private static final Pattern COMMAND_INFO_RECORD =
            Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\S+ (INFO|CONFIG|FINE|FINER|FINEST) .*");

    @TempDir
    Path dir;

    @Test
    void aStartUseAndStopPrintNoWarning() throws Exception {
        String output;
        // No JAVA_HOME, as on a machine where none is set: the launcher finds a JDK 21+ by itself; and
        // none of the tests' own JVM options.
        try (ServerProcess server = ServerProcess.startAsShipped(dir.resolve("data"),
                Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx256m", "JAVA_HOME", ""))) {
            Api api = server.api();
            // Ingest and search: the index opens its files (native madvise) and runs queries.
            assertThat(api.post("/v1/events", "{\"agent_id\":\"launcher\",\"action_type\":\"TOOL_CALL\"}").status())
                    .isEqualTo(201);
            assertThat(api.get("/v1/search?q=launcher").status()).isEqualTo(200);
            output = server.stopAndCollectOutput();
            assertThat(server.process().exitValue()).isZero();
        }
        // The launcher adds no module: Lucene's notes about its vector support are not printed either.
        assertThat(output).contains("trailproof listening on", "trailproof stopped")
                .doesNotContain("vector");
        assertThat(output.lines().filter(l -> l.contains("WARNING")))
                .as("the whole output:\n" + output).isEmpty();
    }

    @Test
    void theLicenseIsAtTheRepositoryRootAndShippedAtTheRootOfTheDistribution() throws Exception {
        Path root = Path.of("LICENSE");
        assertThat(root).isRegularFile();
        assertThat(Files.readString(root)).contains("Apache License").contains("Version 2.0");
        String dist = System.getProperty("trailproof.dist", "target/trailproof");
        assertThat(Files.readAllBytes(Path.of(dist, "LICENSE"))).isEqualTo(Files.readAllBytes(root));
    }

    @Test
    void errorMessagesAreCompleteWhenTheCommandExits() throws Exception {
        for (int i = 0; i < 5; i++) {
            Cli.Run run = Cli.launch(Map.of(), "verify-export", dir.resolve("missing-" + i + ".json").toString());
            assertThat(run.exit()).as(run.toString()).isNotZero();
            assertThat(run.err()).as(run.toString()).contains("cannot read").doesNotContain("WARNING");
        }
    }

    @Test
    void clusterModePrintsNothingOutsideTheLogFormatInTextOrJson(KafkaTestCluster kafka) throws Exception {
        for (String format : List.of("text", "json")) {
            Path config = dir.resolve(format + ".properties");
            Files.writeString(config, "cluster.mode=kafka\ncluster.bootstrap-servers=" + kafka.bootstrapServers()
                    + "\ncluster.node-id=launcher-" + format
                    + "\ncluster.topic=" + KafkaTestCluster.newTopic("launcher-" + format)
                    + "\nlog.format=" + format + "\n");
            String output;
            try (ServerProcess server = ServerProcess.start(dir.resolve("cluster-" + format), "--config",
                    config.toString())) {
                Api api = server.api();
                assertThat(api.post("/v1/events", "{\"agent_id\":\"launcher\",\"action_type\":\"TOOL_CALL\"}").status())
                        .isEqualTo(201);
                assertThat(api.get("/v1/events?agent_id=launcher&min_tree_size=1").status()).isEqualTo(200);
                output = server.stopAndCollectOutput();
            }
            assertThat(output).as(format + ":\n" + output).doesNotContain("SLF4J");
            for (String line : output.split("\n")) {
                if (format.equals("json")) {
                    JsonNode r = Api.JSON.readTree(line);
                    assertThat(r.isObject() && r.has("time") && r.has("level") && r.has("logger") && r.has("message"))
                            .as("a JSON record: " + line).isTrue();
                } else {
                    assertThat(TEXT_RECORD.matcher(line).matches() || line.startsWith("trailproof "))
                            .as("a log record or one of the service's own lines: '" + line + "' in\n" + output).isTrue();
                }
            }
        }
    }

    @Test
    void theCommandsAnAdministratorRunsPrintNoLibraryLines() throws Exception {
        Path data = dir.resolve("data");
        Path backup = dir.resolve("backup.tar");
        Path evidence = dir.resolve("evidence.json");
        List<Cli.Run> runs = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(data)) {
            Api api = server.api();
            assertThat(api.post("/v1/events", "{\"agent_id\":\"admin\",\"action_type\":\"TOOL_CALL\"}").status())
                    .isEqualTo(201);
            runs.add(Cli.run("backup", "-o", backup.toString(), "--server", api.base()));
            runs.add(Cli.run("export", "--agent-id", "admin", "-o", evidence.toString(), "--server", api.base()));
            runs.add(Cli.run("verify", "--agent-id", "admin", "--server", api.base()));
            server.stopAndCollectOutput();
        }
        runs.add(tool("check-index", data));
        runs.add(tool("rebuild-index", data));
        runs.add(Cli.run("index", "check", "--data-dir", data.toString()));
        runs.add(Cli.run("restore", backup.toString(), "--data-dir", dir.resolve("restored").toString()));
        runs.add(Cli.run("verify-export", evidence.toString()));
        for (Cli.Run run : runs) {
            assertThat(run.exit()).as(run.toString()).isZero();
            String printed = run.out() + run.err();
            assertThat(printed).as(run.toString()).doesNotContain("SLF4J", "WARNING", "vector incubator");
            assertThat(printed.lines().filter(l -> COMMAND_INFO_RECORD.matcher(l).matches()))
                    .as(run.toString()).isEmpty();
        }
    }

    /**
     * src/site/cli.md: the launcher learns a candidate's version from its JDK's {@code release} file and
     * starts no JVM to ask; only a candidate without that file is asked ({@code java -version}). Fake
     * JDKs record every call of their {@code java}: one of 17 with a release file (never run), one of
     * 17 without (asked once), and one of 25 with a release file that hands over to the real JVM.
     */
    @Test
    void theLauncherReadsEachCandidatesReleaseFileAndAsksOnlyAJdkWithout() throws Exception {
        Path calls = dir.resolve("calls.log");
        Path old = fakeJdk("old", "17.0.2", true, calls, null);
        Path unlabelled = fakeJdk("unlabelled", "17.0.9", false, calls, null);
        Path current = fakeJdk("current", "25.0.3", true, calls, Path.of(System.getProperty("java.home"), "bin", "java"));
        // java on the PATH is a link to the current fake JDK's, as /usr/bin/java is to a real one.
        Path path = Files.createDirectories(dir.resolve("path"));
        Files.createSymbolicLink(path.resolve("java"), current.resolve("bin/java"));
        String pathVariable = path + ":" + System.getenv("PATH");

        Cli.Run labelled = Cli.launch(Map.of("JAVA_HOME", old.toString(), "PATH", pathVariable), "--version");
        assertThat(labelled.exit()).as(labelled.toString()).isZero();
        assertThat(labelled.out()).contains("trailproof");
        assertThat(Files.readAllLines(calls)).singleElement().asString()
                .startsWith("current ").contains("io.trailproof.cli.Main --version");

        Files.delete(calls);
        Cli.Run asked = Cli.launch(Map.of("JAVA_HOME", unlabelled.toString(), "PATH", pathVariable), "--version");
        assertThat(asked.exit()).as(asked.toString()).isZero();
        List<String> lines = Files.readAllLines(calls);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isEqualTo("unlabelled -version");
        assertThat(lines.get(1)).startsWith("current ").contains("io.trailproof.cli.Main --version");
    }

    /**
     * A JDK directory whose {@code bin/java} appends its name and arguments to {@code calls}, then either
     * prints the version as {@code java -version} does or, given {@code real}, runs the real JVM.
     */
    private Path fakeJdk(String name, String version, boolean releaseFile, Path calls, Path real) throws IOException {
        Path home = Files.createDirectories(dir.resolve(name));
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        String act = real == null
                ? "echo 'openjdk version \"" + version + "\" 2025-01-21' >&2\n"
                : "exec '" + real + "' \"$@\"\n";
        Files.writeString(java, "#!/bin/sh\necho \"" + name + " $*\" >> '" + calls + "'\n" + act);
        assertThat(java.toFile().setExecutable(true)).isTrue();
        if (releaseFile) {
            Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        }
        return home;
    }

    /** An index tool as an administrator runs it, as shipped: {@code index-tools/NAME --data-dir DIR}. */
    private static Cli.Run tool(String name, Path dataDir) throws IOException, InterruptedException {
        Path out = Files.createTempFile("index-tool", ".out");
        Path err = Files.createTempFile("index-tool", ".err");
        try {
            ProcessBuilder pb = ServerProcess.onTestJdkAsShipped(new ProcessBuilder("index-tools/" + name, "--data-dir",
                    dataDir.toString()).redirectOutput(out.toFile()).redirectError(err.toFile()));
            pb.environment().put("TRAILPROOF_HOME", ServerProcess.launcher().getParent().getParent().toString());
            Process p = pb.start();
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(name + " did not finish");
            }
            return new Cli.Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
