package io.trailproof.ledger;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.store.AcknowledgedDataLostException;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.LogSurgeon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stops the real server, changes stored bytes as an attacker with disk access would (frames
 * rewritten with valid CRCs and commit frames), restarts it, and expects verification to name the
 * defect. The re-verification at start must show it in {@code /v1/agents} and {@code /v1/stats} too.
 */
class TamperDetectionIT {

    @TempDir
    Path dir;

    /** Writes 5 events of agent "victim" interleaved with 5 of agent "bystander"; returns the victim's events. */
    private JsonNode[] populate() throws Exception {
        JsonNode[] victim = new JsonNode[6];
        try (InProcessServer server = InProcessServer.start(dir)) {
            Api api = server.api();
            for (int i = 1; i <= 5; i++) {
                victim[i] = api.post("/v1/events", "{\"agent_id\":\"victim\",\"action_name\":\"transfer\","
                        + "\"action_input\":{\"amount\":" + (i * 100) + "}}").json();
                api.post("/v1/events", "{\"agent_id\":\"bystander\",\"action_name\":\"read\"}");
            }
        }
        return victim;
    }

    private static ObjectNode parse(byte[] payload) throws IOException {
        return (ObjectNode) Api.JSON.readTree(payload);
    }

    private static byte[] canonical(ObjectNode event) {
        return Rfc8785.canonicalize(event);
    }

    private static String hashOf(ObjectNode event) throws Exception {
        ObjectNode copy = event.deepCopy();
        copy.remove("hash");
        copy.remove("log_index");
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Rfc8785.canonicalize(copy)));
    }

    private JsonNode restartAndVerify(String agent) throws Exception {
        try (InProcessServer server = InProcessServer.start(dir)) {
            Api api = server.api();
            awaitVerified(api, agent);
            JsonNode result = api.get("/v1/verify?agent_id=" + agent).json();
            JsonNode row = agentRow(api, agent);
            assertThat(row.get("chain_valid").asBoolean()).isEqualTo(result.get("valid").asBoolean());
            JsonNode stats = api.get("/v1/stats").json();
            if (!result.get("valid").asBoolean()) {
                assertThat(stats.get("chain_health").asDouble()).isLessThan(1.0);
            }
            return result;
        }
    }

    private static JsonNode agentRow(Api api, String agent) throws Exception {
        for (JsonNode a : api.get("/v1/agents").json()) {
            if (a.get("agent_id").asText().equals(agent)) {
                return a;
            }
        }
        throw new AssertionError("agent " + agent + " not listed");
    }

    /** The re-verification at start runs in the background; wait until it has covered the agent. */
    private static void awaitVerified(Api api, String agent) throws Exception {
        Await.untilTrue("the chain of " + agent + " is re-verified at start", Duration.ofSeconds(30),
                () -> !agentRow(api, agent).get("verified_at").isNull());
    }

    @Test
    void untouchedLogVerifies() throws Exception {
        populate();
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isTrue();
        assertThat(result.get("events_verified").asLong()).isEqualTo(5);
    }

    @Test
    void editedEventIsAHashMismatch() throws Exception {
        JsonNode[] victim = populate();
        long index = victim[3].get("log_index").asLong();
        LogSurgeon.rewrite(LogSurgeon.onlySegment(dir), records -> {
            try {
                ObjectNode e = parse(records.get((int) index));
                ((ObjectNode) e.get("action_input")).put("amount", 1_000_000);
                records.set((int) index, canonical(e));
            } catch (IOException ex) {
                throw new RuntimeException(ex);
            }
            return records;
        });
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isFalse();
        assertThat(result.get("error").asText()).isEqualTo("hash mismatch at sequence 3");
        assertThat(result.get("sequence").asLong()).isEqualTo(3);
        assertThat(result.get("events_verified").asLong()).isEqualTo(2);
        assertThat(result.get("expected").asText()).isEqualTo(victim[3].get("hash").asText());
        assertThat(restartAndVerify("bystander").get("valid").asBoolean()).isTrue();
    }

    private void rewriteWithValidHash(JsonNode[] victim, int sequence) throws IOException {
        long index = victim[sequence].get("log_index").asLong();
        LogSurgeon.rewrite(LogSurgeon.onlySegment(dir), records -> {
            try {
                ObjectNode e = parse(records.get((int) index));
                ((ObjectNode) e.get("action_input")).put("amount", 1_000_000);
                e.put("hash", hashOf(e));
                records.set((int) index, canonical(e));
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
            return records;
        });
    }

    private void deleteDerivedState() throws IOException {
        Files.deleteIfExists(dir.resolve("head-snapshot"));
        try (var files = Files.list(dir.resolve("merkle"))) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void editedEventWithRecomputedHashNoLongerMatchesTheTree() throws Exception {
        JsonNode[] victim = populate();
        rewriteWithValidHash(victim, 3);
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isFalse();
        assertThat(result.get("error").asText()).isEqualTo("merkle leaf mismatch at sequence 3");
    }

    @Test
    void editedEventWithRecomputedHashAndRebuiltTreeBreaksTheNextLink() throws Exception {
        JsonNode[] victim = populate();
        rewriteWithValidHash(victim, 3);
        deleteDerivedState();
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isFalse();
        assertThat(result.get("error").asText()).isEqualTo("prev_hash mismatch at sequence 4");
        assertThat(result.get("expected").asText()).isNotEqualTo(victim[3].get("hash").asText());
        assertThat(result.get("actual").asText()).isEqualTo(victim[3].get("hash").asText());
    }

    @Test
    void removedEventIsASequenceGap() throws Exception {
        JsonNode[] victim = populate();
        long index = victim[3].get("log_index").asLong();
        LogSurgeon.rewrite(LogSurgeon.onlySegment(dir), records -> {
            records.remove((int) index);
            return records;
        });
        // The log is now shorter than the checkpoint, written after its events were acknowledged: the
        // start refuses; an operator who accepts the loss gets it on /health,
        // and verification finds the gap.
        assertThatThrownBy(() -> InProcessServer.start(dir))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class,
                        e -> assertThat(e.missingEvents()).isEqualTo(1));
        try (InProcessServer server = InProcessServer.start(dir, "storage.accept-truncation", "true")) {
            JsonNode health = server.api().get("/health").json();
            assertThat(health.get("status").asText()).isEqualTo("degraded");
            assertThat(health.get("tree_size").asLong()).isEqualTo(9);
            assertThat(health.get("writable").asBoolean()).isTrue();
            assertThat(health.get("problems")).anySatisfy(p -> assertThat(p.asText())
                    .contains("1 acknowledged event missing").contains("00000000000000000000.seg"));
            // The checkpoint signer finds the changed history too, once its first round after the
            // start has run (before or after this request).
            assertThat(health.get("problems")).allSatisfy(p -> assertThat(p.asText())
                    .containsAnyOf("1 acknowledged event missing", "checkpoint signing stopped"));
        }
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isFalse();
        assertThat(result.get("error").asText()).isEqualTo("sequence gap at sequence 3");
    }

    @Test
    void swappedEventsAreDetected() throws Exception {
        JsonNode[] victim = populate();
        int a = (int) victim[2].get("log_index").asLong();
        int b = (int) victim[3].get("log_index").asLong();
        LogSurgeon.rewrite(LogSurgeon.onlySegment(dir), records -> {
            byte[] t = records.get(a);
            records.set(a, records.get(b));
            records.set(b, t);
            return records;
        });
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isFalse();
        assertThat(result.get("error").asText()).isEqualTo("sequence gap at sequence 2");
    }

    @Test
    void changedTreeLeafIsAMerkleLeafMismatch() throws Exception {
        JsonNode[] victim = populate();
        long index = victim[2].get("log_index").asLong();
        try (FileChannel ch = FileChannel.open(dir.resolve("merkle").resolve("level-00.hash"), StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[32]), index * 32);
        }
        JsonNode result = restartAndVerify("victim");
        assertThat(result.get("valid").asBoolean()).isFalse();
        assertThat(result.get("error").asText()).isEqualTo("merkle leaf mismatch at sequence 2");
    }

    @Test
    void derivedStateCanBeDeleted() throws Exception {
        populate();
        String root;
        try (InProcessServer server = InProcessServer.start(dir)) {
            root = server.api().get("/v1/merkle/root").json().get("root").asText();
        }
        deleteDerivedState();
        try (InProcessServer server = InProcessServer.start(dir)) {
            Api api = server.api();
            assertThat(api.get("/v1/merkle/root").json().get("root").asText()).isEqualTo(root);
            assertThat(api.get("/v1/verify?agent_id=victim").json().get("valid").asBoolean()).isTrue();
            JsonNode next = api.post("/v1/events", "{\"agent_id\":\"victim\"}").json();
            assertThat(next.get("sequence").asLong()).isEqualTo(6);
        }
        List<byte[]> records = LogSurgeon.records(LogSurgeon.onlySegment(dir));
        assertThat(records).hasSize(11);
    }
}
