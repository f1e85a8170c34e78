package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.LogSurgeon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built-in {@code chain_integrity} policy finds what {@code GET /v1/verify} finds, with the same
 * sentence, on a log edited behind the server's back: an edited event, an edited event whose hash
 * was recomputed (only the tree's leaf shows it), and an edited leaf.
 */
class PolicyTamperIT {

    @TempDir
    Path dir;

    /** 5 events of "victim" interleaved with 5 of "bystander"; returns the victim's log indexes by sequence. */
    private long[] populate() throws Exception {
        long[] index = new long[6];
        try (InProcessServer server = InProcessServer.start(dir)) {
            for (int i = 1; i <= 5; i++) {
                index[i] = server.api().post("/v1/events", "{\"agent_id\":\"victim\",\"action_name\":\"transfer\","
                        + "\"action_input\":{\"amount\":" + (i * 100) + "}}").json().get("log_index").asLong();
                server.api().post("/v1/events", "{\"agent_id\":\"bystander\",\"action_name\":\"read\"}");
            }
        }
        return index;
    }

    private void edit(long index, boolean recomputeHash) throws Exception {
        LogSurgeon.rewrite(LogSurgeon.onlySegment(dir), records -> {
            try {
                ObjectNode e = (ObjectNode) Api.JSON.readTree(records.get((int) index));
                ((ObjectNode) e.get("action_input")).put("amount", 1_000_000);
                if (recomputeHash) {
                    ObjectNode copy = e.deepCopy();
                    copy.remove("hash");
                    copy.remove("log_index");
                    e.put("hash", HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                            .digest(Rfc8785.canonicalize(copy))));
                }
                records.set((int) index, Rfc8785.canonicalize(e));
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
            return records;
        });
    }

    /** Restarts, runs chain_integrity and checks it agrees with GET /v1/verify; returns the example's message. */
    private String checkAgreesWithVerify(long expectedSequence) throws Exception {
        try (InProcessServer server = InProcessServer.start(dir)) {
            Api api = server.api();
            JsonNode verify = api.get("/v1/verify?agent_id=victim").json();
            assertThat(verify.get("valid").asBoolean()).isFalse();
            JsonNode answer = api.post("/v1/policy/check", "{\"policy\": \"chain_integrity\"}").json();
            assertThat(answer.get("passed").asBoolean()).isFalse();
            JsonNode rule = answer.get("results").get(0);
            assertThat(rule.get("violations").asLong()).isEqualTo(1); // the bystander's chain verifies
            JsonNode example = rule.get("examples").get(0);
            assertThat(example.get("agent_id").asText()).isEqualTo("victim");
            assertThat(example.get("sequence").asLong()).isEqualTo(expectedSequence);
            assertThat(example.get("message").asText())
                    .isEqualTo("the chain of agent victim does not verify: " + verify.get("error").asText());
            return verify.get("error").asText();
        }
    }

    @Test
    void anEditedEventIsAHashMismatch() throws Exception {
        long[] index = populate();
        edit(index[3], false);
        assertThat(checkAgreesWithVerify(3)).isEqualTo("hash mismatch at sequence 3");
    }

    @Test
    void anEditedEventWithItsHashRecomputedNoLongerMatchesTheTree() throws Exception {
        long[] index = populate();
        edit(index[3], true);
        assertThat(checkAgreesWithVerify(3)).isEqualTo("merkle leaf mismatch at sequence 3");
    }

    @Test
    void anEditedLeafIsAMerkleLeafMismatch() throws Exception {
        long[] index = populate();
        try (FileChannel ch = FileChannel.open(dir.resolve("merkle").resolve("level-00.hash"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[32]), index[2] * 32);
        }
        assertThat(checkAgreesWithVerify(2)).isEqualTo("merkle leaf mismatch at sequence 2");
    }
}
