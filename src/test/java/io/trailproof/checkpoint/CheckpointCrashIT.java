package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.testing.Api;
import io.trailproof.testing.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 while checkpoints are being signed under load: after the restart the service serves a
 * checkpoint at least as large as the last one a client saw, consistent with it, and keeps signing
 * (the persisted last checkpoint is never ahead of the durable log, and never lost).
 */
class CheckpointCrashIT {

    @TempDir
    Path dir;

    @Test
    void aKilledServiceNeverContradictsNorForgetsItsCheckpoints() throws Exception {
        Path data = dir.resolve("data");
        Map<String, String> env = Map.of("TRAILPROOF_CHECKPOINT_INTERVAL", "PT0.01S");
        // Three kills; each restart is checked, then goes on under load and is the next one killed,
        // and the last restart is stopped cleanly.
        TlogCheckpoint seen = null;
        for (int round = 0; round <= 3; round++) {
            try (ServerProcess server = ServerProcess.start(data, env)) {
                Api api = server.api();
                if (seen != null) {
                    assertThat(api.get("/health").json().get("problems").toString()).isEqualTo("[]");
                    long size = api.get("/health").json().get("tree_size").asLong();
                    TlogCheckpoint after = CheckpointTilesIT.awaitCheckpoint(api, size);
                    assertThat(after.size()).isGreaterThanOrEqualTo(seen.size());
                    assertThat(api.get("/v1/merkle/root?tree_size=" + seen.size()).json().get("root").asText())
                            .isEqualTo(HexFormat.of().formatHex(seen.root()));
                }
                if (round == 3) {
                    server.stop();
                    break;
                }
                CheckpointTilesIT.ingest(api, 200);
                long size = api.get("/health").json().get("tree_size").asLong();
                seen = CheckpointTilesIT.awaitCheckpoint(api, size);
                CheckpointTilesIT.ingest(api, 200); // signing continues while the process dies
                server.kill();
            }
        }
        assertThat(Files.exists(data.resolve(CheckpointFile.NAME))).isTrue();
    }
}
