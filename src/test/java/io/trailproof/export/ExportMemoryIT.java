package io.trailproof.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.testing.Api;
import io.trailproof.testing.Cli;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The export streams: 45,000 events of one agent (200,000 in the nightly profile,
 * {@code trailproof.export-memory.events}, src/site/testing.md#nightly-profile), interleaved with
 * another agent's, are exported by a server whose heap is limited to 64 MB, and the package verifies
 * offline, also within 64 MB. Each event carries its inclusion proof, so the package is about 76 MB
 * even at the smaller count, more than the whole heap: held whole, as text or as a tree, it would not fit.
 */
@Order(RunOrder.LONGEST)
class ExportMemoryIT {

    private static final int BATCH = 5_000;
    /** A multiple of {@link #BATCH}. */
    private static final int EVENTS = Integer.getInteger("trailproof.export-memory.events", 45_000) / BATCH * BATCH;
    private static final Map<String, String> SMALL_HEAP = Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx64m");

    @TempDir
    Path dir;

    @Test
    void aLargeExportAndItsVerificationRunWithin64Megabytes() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("data"), SMALL_HEAP)) {
            Api api = server.api();
            for (int done = 0; done < EVENTS; done += BATCH) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < BATCH; i++) {
                    if (i > 0) {
                        batch.append(',');
                    }
                    int n = done + i;
                    batch.append("{\"agent_id\":\"bulk\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\",")
                            .append("\"action_input\":{\"n\":").append(n).append("}}");
                    if (n % 10 == 0) {
                        batch.append(",{\"agent_id\":\"other\",\"action_name\":\"noise\"}");
                    }
                }
                batch.append(']');
                Api.Reply r = api.post("/v1/batch", batch.toString());
                assertThat(r.status()).as(r.body().length() > 300 ? r.body().substring(0, 300) : r.body()).isEqualTo(201);
            }

            Path file = dir.resolve("bulk.json");
            String url = "http://127.0.0.1:" + server.port();
            Cli.Run export = Cli.launch(SMALL_HEAP, "export", "--server", url, "--agent-id", "bulk", "-o", file.toString());
            assertThat(export.exit()).as(export.toString()).isZero();
            assertThat(export.out()).contains("wrote " + EVENTS + " events of agent bulk (tree size " + (EVENTS + EVENTS / 10) + ")");
            assertThat(api.get("/health").status()).as("the server survived the export").isEqualTo(200);
            System.out.printf("ExportMemoryIT: a package of %,d bytes for %,d events%n", Files.size(file), EVENTS);

            Cli.Run verify = Cli.launch(SMALL_HEAP, "verify-export", file.toString());
            assertThat(verify.exit()).as(verify.toString()).isZero();
            assertThat(verify.out()).contains("Evidence package: VALID",
                    EVENTS + " events (sequences 1 to " + EVENTS + ")", EVENTS + " inclusion proofs lead to the root");
            Files.delete(file);
            assertThat(server.stop()).isZero();
        }
    }
}
