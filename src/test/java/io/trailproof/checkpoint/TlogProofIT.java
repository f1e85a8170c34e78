package io.trailproof.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.evidence.EventTlogProof;
import io.trailproof.core.note.TlogProof;
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

/** {@code GET /v1/merkle/proof?format=tlog-proof}, {@code trailproof proof} and {@code trailproof verify-proof}. */
class TlogProofIT {

    @TempDir
    Path dir;

    @Test
    void aFreshEventGetsAProofUnderACheckpointSignedOnTheSpot() throws Exception {
        // An interval of an hour: only the start's size-0 checkpoint exists when the proof is asked for.
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), "checkpoint.interval", "PT1H")) {
            Api api = server.api();
            CheckpointTilesIT.ingest(api, 10);
            JsonNode event = api.post("/v1/events", "{\"agent_id\":\"a\",\"action_type\":\"TOOL_CALL\"}").json();
            String id = event.get("id").asText();
            Api.Reply r = api.get("/v1/merkle/proof?event_id=" + id + "&format=tlog-proof");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(r.body()).startsWith(TlogProof.HEADER + "\nextra ").contains("\nindex 10\n");
            String vkey = api.get("/v1/checkpoint/key").json().get("vkey").asText();
            EventTlogProof.Result result = EventTlogProof.verify(r.body().getBytes(StandardCharsets.UTF_8),
                    VerifierKey.parse(vkey), List.of(), event);
            assertThat(result.eventId()).isEqualTo(id);
            assertThat(result.verified().checkpoint().size()).isEqualTo(11);
            // The JSON form is unchanged.
            assertThat(api.get("/v1/merkle/proof?event_id=" + id).json().get("leaf_index").asLong()).isEqualTo(10);
            assertThat(api.get("/v1/merkle/proof?event_id=018f0000-0000-7000-8000-000000000000&format=tlog-proof")
                    .status()).isEqualTo(404);
            assertThat(api.get("/v1/merkle/proof?format=tlog-proof").status()).isEqualTo(400);
            Api.Reply unknown = api.get("/v1/merkle/proof?event_id=" + id + "&format=xml");
            assertThat(unknown.status()).isEqualTo(400);
            assertThat(unknown.body()).contains("tlog-proof");
        }
    }

    @Test
    void theCliDownloadsAndVerifiesOffline() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), "checkpoint.interval", "PT0.05S")) {
            Api api = server.api();
            JsonNode event = api.post("/v1/events", "{\"agent_id\":\"a\",\"action_type\":\"TOOL_CALL\"}").json();
            String id = event.get("id").asText();
            String vkey = api.get("/v1/checkpoint/key").json().get("vkey").asText();
            Path proof = dir.resolve("e.tlog-proof");
            Cli.Run got = Cli.run("proof", id, "-o", proof.toString(), "--server", api.base());
            assertThat(got.exit()).as(got.toString()).isZero();

            Path eventFile = dir.resolve("e.json");
            Files.writeString(eventFile, event.toString());
            Cli.Run ok = Cli.run("verify-proof", proof.toString(), "--log-key", vkey, "--event", eventFile.toString());
            assertThat(ok.exit()).as(ok.toString()).isZero();
            assertThat(ok.out()).contains("VALID").contains(id);

            Files.writeString(eventFile, event.toString().replace("TOOL_CALL", "TOOL_CALM"));
            Cli.Run changed = Cli.run("verify-proof", proof.toString(), "--log-key", vkey, "--event", eventFile.toString());
            assertThat(changed.exit()).as(changed.toString()).isEqualTo(1);
            assertThat(changed.out()).contains("INVALID").contains("recomputed hash");

            String text = Files.readString(proof);
            Files.writeString(proof, text.replace("\nindex 0\n", "\nindex 1\n"));
            assertThat(Cli.run("verify-proof", proof.toString(), "--log-key", vkey).exit()).isEqualTo(1);

            Cli.Run badKey = Cli.run("verify-proof", proof.toString(), "--log-key", "not-a-key");
            assertThat(badKey.exit()).as(badKey.toString()).isEqualTo(2);
        }
    }
}
