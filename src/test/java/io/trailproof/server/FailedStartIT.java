package io.trailproof.server;

import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A start that fails after the data directory was taken closes what it had opened (the ledger, the
 * search index, the timestamp store, the lock): the next start in the same directory succeeds and
 * serves every event stored before.
 */
class FailedStartIT {

    @TempDir
    Path dir;

    @Test
    void aRefusedSigningKeyLeavesTheDirectoryToTheNextStart() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer s = InProcessServer.start(data)) {
            assertThat(s.api().post("/v1/events", "{\"agent_id\":\"a\"}").status()).isEqualTo(201);
        }
        // refused once the ledger and the timestamp store are open: the key on disk has another name
        assertThatThrownBy(() -> InProcessServer.start(data, "checkpoint.origin", "example.com/other"))
                .isInstanceOf(TrailproofServer.StartException.class).hasMessageContaining("checkpoint.origin");
        try (InProcessServer s = InProcessServer.start(data)) {
            assertThat(s.api().get("/health").json().get("tree_size").asLong()).isEqualTo(1);
        }
    }

    @Test
    void aPortInUseLeavesTheDirectoryToTheNextStart() throws Exception {
        Path data = dir.resolve("data");
        try (InProcessServer other = InProcessServer.start(dir.resolve("other"))) {
            // fails at the last step, binding the listener, with everything else open
            assertThatThrownBy(() -> InProcessServer.start(data, "server.port",
                    String.valueOf(other.server().port()))).isInstanceOf(RuntimeException.class);
        }
        try (InProcessServer s = InProcessServer.start(data)) {
            assertThat(s.api().post("/v1/events", "{\"agent_id\":\"a\"}").status()).isEqualTo(201);
            assertThat(s.api().get("/v1/search?q=agent_id:a").status()).isEqualTo(200);
            assertThat(s.api().get("/health").json().get("tree_size").asLong()).isEqualTo(1);
        }
    }
}
