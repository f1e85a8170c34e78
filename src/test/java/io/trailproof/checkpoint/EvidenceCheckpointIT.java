package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.testing.Api;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Evidence packages carry the signed checkpoint of their exact tree; verify-export --log-key checks it. */
class EvidenceCheckpointIT {

    @TempDir
    Path dir;

    @Test
    void anExportCarriesItsCheckpointAndVerifiesWithTheLogKey() throws Exception {
        // A long interval: the export's tree size is signed for the package, not by the scheduler.
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), "checkpoint.interval", "PT1H")) {
            Api api = server.api();
            CheckpointTilesIT.ingest(api, 30);
            Api.Reply export = api.get("/v1/export?agent_id=agent-1");
            assertThat(export.status()).isEqualTo(200);
            JsonNode pack = export.json();
            String vkey = api.get("/v1/checkpoint/key").json().get("vkey").asText();
            NoteVerification.Opened o = NoteVerification.open(pack.get("checkpoint").asText()
                    .getBytes(StandardCharsets.UTF_8), List.of(VerifierKey.parse(vkey)));
            TlogCheckpoint cp = TlogCheckpoint.parse(o.note().text());
            assertThat(cp.size()).isEqualTo(pack.get("tree_size").asLong()).isEqualTo(30);

            Path file = dir.resolve("pack.json");
            Files.writeString(file, export.body());
            Cli.Run withKey = Cli.run("verify-export", file.toString(), "--log-key", vkey);
            assertThat(withKey.exit()).as(withKey.toString()).isZero();
            assertThat(withKey.out()).contains("signed by " + cp.origin());

            Cli.Run withoutKey = Cli.run("verify-export", file.toString());
            assertThat(withoutKey.exit()).as(withoutKey.toString()).isZero();
            assertThat(withoutKey.out()).contains("--log-key");

            String otherKey = NoteSigner.of(cp.origin(), new byte[32]).vkey();
            Cli.Run wrongKey = Cli.run("verify-export", file.toString(), "--log-key", otherKey);
            assertThat(wrongKey.exit()).as(wrongKey.toString()).isEqualTo(1);
            assertThat(Cli.run("verify-export", file.toString(), "--log-key", "nonsense").exit()).isEqualTo(2);
        }
    }
}
