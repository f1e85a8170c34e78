package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.merkle.MerkleProofs;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Every endpoint of the ledger core against the real server on a free port. */
class LedgerEndpointsIT {

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "limits.max-body-bytes", "65536",
                "limits.max-batch-events", "50");
        api = server.api();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static List<byte[]> hexList(JsonNode array) {
        List<byte[]> out = new ArrayList<>();
        array.forEach(n -> out.add(HexFormat.of().parseHex(n.asText())));
        return out;
    }

    static String recomputeHash(JsonNode event) throws Exception {
        ObjectNode copy = ((ObjectNode) event).deepCopy();
        copy.remove("hash");
        copy.remove("log_index");
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Rfc8785.canonicalize(copy)));
    }

    @Test
    void storesAndChainsEvents() throws Exception {
        Reply first = api.post("/v1/events", "{\"agent_id\":\"chain-a\",\"action_type\":\"TOOL_CALL\","
                + "\"action_input\":{\"q\":\"revenue\",\"n\":1.50},\"labels\":{\"env\":\"prod\"}}");
        assertThat(first.status()).isEqualTo(201);
        JsonNode e1 = first.json();
        assertThat(first.header("Location")).isEqualTo("/v1/events/" + e1.get("id").asText());
        assertThat(e1.get("id").asText()).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        assertThat(e1.get("schema_version").asText()).isEqualTo("1.0");
        assertThat(e1.get("sequence").asLong()).isEqualTo(1);
        assertThat(e1.get("prev_hash").asText()).isEqualTo("0".repeat(64));
        assertThat(e1.get("recorded_at").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
        assertThat(e1.get("timestamp").asText()).isEqualTo(e1.get("recorded_at").asText());
        assertThat(e1.get("action_input").get("n").toString()).isEqualTo("1.5");
        assertThat(e1.get("hash").asText()).isEqualTo(recomputeHash(e1));
        // The stored bytes are the canonical form: what a client reads is what was hashed.
        assertThat(first.body()).isEqualTo(new String(Rfc8785.canonicalize(e1), StandardCharsets.UTF_8));

        JsonNode e2 = api.post("/v1/events", "{\"agent_id\":\"chain-a\",\"timestamp\":\"2026-01-01T10:00:00+01:00\"}").json();
        assertThat(e2.get("sequence").asLong()).isEqualTo(2);
        assertThat(e2.get("prev_hash").asText()).isEqualTo(e1.get("hash").asText());
        assertThat(e2.get("timestamp").asText()).isEqualTo("2026-01-01T10:00:00+01:00");
        assertThat(e2.get("log_index").asLong()).isGreaterThan(e1.get("log_index").asLong());
        assertThat(e2.get("recorded_at").asText()).isGreaterThanOrEqualTo(e1.get("recorded_at").asText());

        Reply got = api.get("/v1/events/" + e1.get("id").asText());
        assertThat(got.status()).isEqualTo(200);
        assertThat(got.body()).isEqualTo(first.body());
    }

    @Test
    void refusesBadEventsNamingTheField() throws Exception {
        assertError(api.post("/v1/events", "{\"action_type\":\"x\"}"), 400, "agent_id");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\",\"duration_ms\":-1}"), 400, "duration_ms");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\",\"colour\":\"red\"}"), 400, "colour");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\",\"agent_id\":\"b\"}"), 400, "agent_id");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\",\"metadata\":{\"n\":12345678901234567890}}"), 400, "metadata");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\""), 400, "");
        assertError(api.post("/v1/events", "[]"), 400, "");
        assertError(api.post("/v1/events", ""), 400, "empty");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\"}".getBytes(StandardCharsets.UTF_8), "text/plain"), 415, "application/json");
        assertError(api.post("/v1/events", "{\"agent_id\":\"a\"}".getBytes(StandardCharsets.UTF_8), null), 415, "application/json");
        String big = "{\"agent_id\":\"a\",\"error_message\":\"" + "x".repeat(70_000) + "\"}";
        assertError(api.postExpectingContinue("/v1/events", big), 413, "limit");
    }

    @Test
    void batchesReportEachItem() throws Exception {
        Reply all = api.post("/v1/batch", "[{\"agent_id\":\"batch-a\"},{\"agent_id\":\"batch-a\"},{\"agent_id\":\"batch-b\"}]");
        assertThat(all.status()).isEqualTo(201);
        JsonNode items = all.json();
        assertThat(items).hasSize(3);
        assertThat(items.get(1).get("event").get("prev_hash").asText()).isEqualTo(items.get(0).get("event").get("hash").asText());
        assertThat(items.get(1).get("event").get("sequence").asLong()).isEqualTo(2);

        Reply partial = api.post("/v1/batch", "[{\"agent_id\":\"batch-a\"},{\"action_type\":\"x\"},{\"agent_id\":\"batch-a\"}]");
        assertThat(partial.status()).isEqualTo(207);
        JsonNode p = partial.json();
        assertThat(p.get(1).get("index").asInt()).isEqualTo(1);
        assertThat(p.get(1).get("error").asText()).contains("agent_id");
        assertThat(p.get(2).get("event").get("sequence").asLong()).isEqualTo(p.get(0).get("event").get("sequence").asLong() + 1);

        Reply none = api.post("/v1/batch", "[{\"x\":1}]");
        assertThat(none.status()).isEqualTo(207);

        assertError(api.post("/v1/batch", "[]"), 400, "empty");
        assertError(api.post("/v1/batch", "{\"agent_id\":\"a\"}"), 400, "array");
        assertError(api.post("/v1/batch", "[" + "{\"agent_id\":\"a\"},".repeat(50) + "{\"agent_id\":\"a\"}]"), 400, "50");
        long before = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        assertError(api.post("/v1/batch", "[{\"agent_id\":\"a\"},{\"agent_id\":\"a\",\"x\":1,\"x\":2}]"), 400, "x");
        assertThat(api.get("/v1/merkle/root").json().get("tree_size").asLong()).isEqualTo(before);
    }

    @Test
    void lookupsAndErrors() throws Exception {
        assertError(api.get("/v1/events/not-a-uuid"), 400, "UUID");
        assertError(api.get("/v1/events/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00"), 404, "019a8b2c");
        assertError(api.get("/v1/nothing"), 404, "endpoint");
        Reply wrong = api.send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.server().port() + "/v1/agents")).DELETE());
        assertError(wrong, 405, "GET");
        assertThat(wrong.header("Allow")).isEqualTo("GET");
        Reply health = api.get("/health");
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().get("status").asText()).isEqualTo("ok");
        assertThat(health.json().get("problems").isArray()).isTrue();
        assertThat(health.json().get("problems")).isEmpty();
        assertThat(health.json().get("writable").asBoolean()).isTrue();
    }

    /** src/site/http-api.md#agents: a chain nobody verified yet is verified when the list is built; never a null verdict. */
    @Test
    void aNewAgentIsListedWithAVerdict() throws Exception {
        api.post("/v1/events", "{\"agent_id\":\"fresh-agent\"}");
        JsonNode agent = null;
        for (JsonNode a : api.get("/v1/agents").json()) {
            assertThat(a.get("chain_valid").isBoolean()).as("chain_valid of " + a.get("agent_id")).isTrue();
            assertThat(a.get("verified_at").isTextual()).as("verified_at of " + a.get("agent_id")).isTrue();
            if (a.get("agent_id").asText().equals("fresh-agent")) {
                agent = a;
            }
        }
        assertThat(agent).isNotNull();
        assertThat(agent.get("chain_valid").asBoolean()).isTrue();
        assertThat(agent.get("head_sequence").asLong()).isEqualTo(agent.get("event_count").asLong());
    }

    @Test
    void agentsStatsAndVerify() throws Exception {
        for (int i = 0; i < 3; i++) {
            api.post("/v1/events", "{\"agent_id\":\"stats-agent\"}");
        }
        Reply verify = api.get("/v1/verify?agent_id=stats-agent");
        assertThat(verify.status()).isEqualTo(200);
        assertThat(verify.json().get("valid").asBoolean()).isTrue();
        assertThat(verify.json().get("events_verified").asLong()).isEqualTo(3);
        assertThat(verify.json().get("head_sequence").asLong()).isEqualTo(3);
        assertError(api.get("/v1/verify"), 400, "agent_id");
        assertError(api.get("/v1/verify?agent_id=nobody"), 404, "nobody");

        JsonNode agent = null;
        for (JsonNode a : api.get("/v1/agents").json()) {
            if (a.get("agent_id").asText().equals("stats-agent")) {
                agent = a;
            }
        }
        assertThat(agent).isNotNull();
        assertThat(agent.get("event_count").asLong()).isEqualTo(3);
        assertThat(agent.get("chain_valid").asBoolean()).isTrue();
        assertThat(agent.get("head_sequence").asLong()).isEqualTo(3);
        assertThat(agent.get("verified_at").isNull()).isFalse();

        JsonNode stats = api.get("/v1/stats").json();
        assertThat(stats.get("total_events").asLong()).isEqualTo(stats.get("tree_size").asLong()).isGreaterThanOrEqualTo(3);
        assertThat(stats.get("events_last_24h").asLong()).isEqualTo(stats.get("total_events").asLong());
        assertThat(stats.get("active_agents").asLong()).isEqualTo(stats.get("total_agents").asLong());
        assertThat(stats.get("chain_health").asDouble()).isEqualTo(1.0);
        assertThat(stats.get("merkle_root").asText()).isEqualTo(api.get("/v1/merkle/root").json().get("root").asText());
    }

    @Test
    void merkleRootsProofsAndConsistency() throws Exception {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add(api.post("/v1/events", "{\"agent_id\":\"merkle-" + (i % 2) + "\"}").json().get("id").asText());
        }
        JsonNode root = api.get("/v1/merkle/root").json();
        long size = root.get("tree_size").asLong();
        for (String id : ids) {
            Reply proofReply = api.get("/v1/merkle/proof?event_id=" + id);
            JsonNode p = proofReply.json();
            // written as text by the endpoint: the bytes Jackson writes for the same document, in this member order
            assertThat(proofReply.body()).isEqualTo(new ObjectMapper().writeValueAsString(p));
            assertThat(p.fieldNames()).toIterable().containsExactly("event_id", "leaf_index", "leaf_hash",
                    "tree_size", "root", "siblings");
            assertThat(p.get("tree_size").asLong()).isEqualTo(size);
            assertThat(p.get("root").asText()).isEqualTo(root.get("root").asText());
            JsonNode event = api.get("/v1/events/" + id).json();
            byte[] leaf = HexFormat.of().parseHex(p.get("leaf_hash").asText());
            assertThat(leaf).isEqualTo(Rfc9162.leafHash(HexFormat.of().parseHex(event.get("hash").asText())));
            assertThat(MerkleProofs.verifyInclusion(leaf, p.get("leaf_index").asLong(), size, hexList(p.get("siblings")),
                    HexFormat.of().parseHex(p.get("root").asText()))).isTrue();
        }
        long older = size - 3;
        JsonNode oldRoot = api.get("/v1/merkle/root?tree_size=" + older).json();
        assertThat(oldRoot.get("tree_size").asLong()).isEqualTo(older);
        JsonNode c = api.get("/v1/merkle/consistency?from=" + older).json();
        assertThat(c.get("to").asLong()).isEqualTo(size);
        assertThat(c.get("from_root").asText()).isEqualTo(oldRoot.get("root").asText());
        assertThat(MerkleProofs.verifyConsistency(older, size, HexFormat.of().parseHex(c.get("from_root").asText()),
                HexFormat.of().parseHex(c.get("to_root").asText()), hexList(c.get("proof")))).isTrue();
        JsonNode proofAtOlder = api.get("/v1/merkle/proof?event_id=" + ids.get(0) + "&tree_size=" + older).json();
        assertThat(proofAtOlder.get("root").asText()).isEqualTo(oldRoot.get("root").asText());

        assertError(api.get("/v1/merkle/root?tree_size=" + (size + 1000)), 400, "tree_size");
        assertError(api.get("/v1/merkle/root?tree_size=abc"), 400, "tree_size");
        assertError(api.get("/v1/merkle/root?tree_size=-1"), 400, "tree_size");
        assertError(api.get("/v1/merkle/consistency"), 400, "from");
        assertError(api.get("/v1/merkle/consistency?from=5&to=" + (size + 1000)), 400, "to");
        assertError(api.get("/v1/merkle/proof"), 400, "event_id");
        // an id whose index bits name a stored event that is not its own finds nothing
        String madeUp = (ids.get(3).charAt(0) == '0' ? "1" : "0") + ids.get(3).substring(1);
        assertThat(api.get("/v1/merkle/proof?event_id=" + madeUp).status()).isEqualTo(404);
        assertError(api.get("/v1/merkle/proof?event_id=" + ids.get(6) + "&tree_size=1"), 400, "tree_size");
        assertThat(api.get("/v1/merkle/root?tree_size=0").json().get("root").asText())
                .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    static void assertError(Reply reply, int status, String mentions) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        JsonNode body = reply.json();
        assertThat(body.get("error").asText()).isNotBlank().containsIgnoringCase(mentions);
        assertThat(reply.body()).doesNotContain("Exception").doesNotContain("\tat ");
    }
}
