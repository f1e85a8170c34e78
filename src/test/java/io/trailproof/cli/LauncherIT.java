package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.testing.Api;
import io.trailproof.testing.Cli;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

/**
 * src/site/operations.md#start-output: the packaged launcher starts the JVM without warnings, with Lucene's native access
 * enabled and the vector module added (every JDK 21+ has it), and the program's own messages still
 * reach standard error complete and in order.
 */
class LauncherIT {

    @TempDir
    Path dir;

    @Test
    void aStartUseAndStopPrintNoWarning() throws Exception {
        String output;
        try (ServerProcess server = ServerProcess.start(dir.resolve("data"), Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx256m"))) {
            Api api = server.api();
            // Ingest and search: the index opens its files (native madvise) and runs queries.
            assertThat(api.post("/v1/events", "{\"agent_id\":\"launcher\",\"action_type\":\"TOOL_CALL\"}").status())
                    .isEqualTo(201);
            assertThat(api.get("/v1/search?q=launcher").status()).isEqualTo(200);
            output = server.stopAndCollectOutput();
            assertThat(server.process().exitValue()).isZero();
        }
        assertThat(output).contains("trailproof listening on", "trailproof stopped")
                .contains("Java vector incubator API enabled");
        assertThat(output.lines().filter(l -> l.contains("WARNING")))
                .as("the whole output:\n" + output).isEmpty();
    }

    @Test
    void errorMessagesAreCompleteWhenTheCommandExits() throws Exception {
        for (int i = 0; i < 5; i++) {
            Cli.Run run = Cli.launch(Map.of(), "verify-export", dir.resolve("missing-" + i + ".json").toString());
            assertThat(run.exit()).as(run.toString()).isNotZero();
            assertThat(run.err()).as(run.toString()).contains("cannot read").doesNotContain("WARNING");
        }
    }
}
