package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Redaction before hashing (src/site/redaction.md) on every ingest path of the real server. */
class RedactionIT {

    @TempDir
    Path dir;

    private InProcessServer start() throws Exception {
        Path rules = dir.resolve("rules.txt");
        Files.writeString(rules, "# our ticket numbers\nticket = TCK-[0-9]{4}+\n");
        return InProcessServer.start(dir.resolve("data"), "redaction.enabled", "true", "redaction.rules", rules.toString());
    }

    @Test
    void singleAndBatchEventsAreStoredRedactedWithTheirCountsAndVerify() throws Exception {
        try (InProcessServer s = start()) {
            Api api = s.api();
            Reply single = api.post("/v1/events", "{\"agent_id\":\"mailer\",\"action_type\":\"TOOL_CALL\","
                    + "\"action_input\":{\"to\":\"bob@example.com\",\"ticket\":\"TCK-1234\"},"
                    + "\"error_message\":\"card 4111 1111 1111 1111 declined\",\"labels\":{\"owner\":\"amy@example.org\"}}");
            assertThat(single.status()).isEqualTo(201);
            JsonNode stored = api.get(single.header("Location")).json();
            assertThat(stored.at("/action_input/to").asText()).isEqualTo("[REDACTED:email]");
            assertThat(stored.at("/action_input/ticket").asText()).isEqualTo("[REDACTED:ticket]");
            assertThat(stored.get("error_message").asText()).isEqualTo("card [REDACTED:visa] declined");
            assertThat(stored.at("/labels/owner").asText()).isEqualTo("[REDACTED:email]");
            assertThat(stored.get("redactions").toString()).isEqualTo("{\"email\":2,\"ticket\":1,\"visa\":1}");
            assertThat(LedgerEndpointsIT.recomputeHash(stored)).isEqualTo(stored.get("hash").asText());
            assertThat(single.body()).doesNotContain("bob@example.com");

            Reply batch = api.post("/v1/batch", "[{\"agent_id\":\"mailer\",\"metadata\":{\"ip\":\"10.0.0.7\"}},"
                    + "{\"agent_id\":\"mailer\",\"metadata\":{\"note\":\"nothing secret\"}}]");
            assertThat(batch.status()).isEqualTo(201);
            JsonNode listed = api.get("/v1/events?agent_id=mailer&order=asc").json();
            assertThat(listed).hasSize(3);
            assertThat(listed.get(1).at("/metadata/ip").asText()).isEqualTo("[REDACTED:ipv4]");
            assertThat(listed.get(1).get("redactions").toString()).isEqualTo("{\"ipv4\":1}");
            assertThat(listed.get(2).has("redactions")).as("nothing replaced, no field").isFalse();
            for (JsonNode e : listed) {
                assertThat(LedgerEndpointsIT.recomputeHash(e)).isEqualTo(e.get("hash").asText());
            }
            JsonNode verify = api.get("/v1/verify?agent_id=mailer").json();
            assertThat(verify.get("valid").asBoolean()).isTrue();
            // the secret is in no answer: the index holds only what was stored
            assertThat(api.get("/v1/search?q=" + URLEncoder.encode("\"bob@example.com\"",
                    StandardCharsets.UTF_8)).json().get("total").asLong()).isZero();
            // "[REDACTED:email]" is one word to the analyzer (a colon inside a word joins it, UAX #29)
            assertThat(api.get("/v1/search?q=redacted*").json().get("total").asLong()).isEqualTo(2);
        }
    }

    @Test
    void aClientCannotSendRedactionsItselfAndRedactionNeverMakesAnEventInvalid() throws Exception {
        try (InProcessServer s = start()) {
            Api api = s.api();
            Reply forged = api.post("/v1/events", "{\"agent_id\":\"a\",\"redactions\":{\"email\":1}}");
            assertThat(forged.status()).isEqualTo(400);
            assertThat(forged.json().get("error").asText()).contains("unknown field 'redactions'");
            // about 1 MiB as sent; once redacted each short IP is longer, so the stored form is over 1 MiB
            StringBuilder ips = new StringBuilder();
            while (ips.length() < 1_000_000) {
                ips.append("1.2.3.4 ");
            }
            Reply big = api.post("/v1/events", "{\"agent_id\":\"big\",\"metadata\":{\"ips\":\"" + ips + "\"}}");
            assertThat(big.status()).isEqualTo(201);
            JsonNode stored = api.get(big.header("Location")).json();
            assertThat(stored.at("/redactions/ipv4").asInt()).isEqualTo(125_000);
            assertThat(LedgerEndpointsIT.recomputeHash(stored)).isEqualTo(stored.get("hash").asText());
            assertThat(api.get("/v1/verify?agent_id=big").json().get("valid").asBoolean()).isTrue();
            // an event over the limit as sent is still refused, redaction or not
            StringBuilder over = new StringBuilder();
            while (over.length() < (1 << 20) + 10) {
                over.append("1.2.3.4 ");
            }
            assertThat(api.post("/v1/events", "{\"agent_id\":\"big\",\"metadata\":{\"ips\":\"" + over + "\"}}").status())
                    .isEqualTo(400);
        }
    }

    @Test
    void anOtlpSpanIsRedactedLikeAnyOtherEvent() throws Exception {
        try (InProcessServer s = start()) {
            String span = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                    + "{\"stringValue\":\"otlp-mailer\"}}]},\"scopeSpans\":[{\"scope\":{\"name\":\"s\"},\"spans\":[{"
                    + "\"traceId\":\"0af7651916cd43dd8448eb211c80319c\",\"spanId\":\"b7ad6b7169203331\",\"name\":\"send\","
                    + "\"startTimeUnixNano\":\"1700000000000000000\",\"endTimeUnixNano\":\"1700000001000000000\","
                    + "\"attributes\":[{\"key\":\"gen_ai.operation.name\",\"value\":{\"stringValue\":\"execute_tool\"}},"
                    + "{\"key\":\"gen_ai.tool.call.arguments\",\"value\":{\"stringValue\":"
                    + "\"{\\\"to\\\":\\\"bob@example.com\\\"}\"}}]}]}]}]}";
            Reply r = s.api().post("/v1/traces", span.getBytes(StandardCharsets.UTF_8), "application/json");
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            JsonNode stored = s.api().get("/v1/events?agent_id=otlp-mailer").json().get(0);
            assertThat(stored.at("/action_input/arguments/to").asText()).isEqualTo("[REDACTED:email]");
            assertThat(stored.get("redactions").toString()).isEqualTo("{\"email\":1}");
            assertThat(LedgerEndpointsIT.recomputeHash(stored)).isEqualTo(stored.get("hash").asText());
        }
    }

    @Test
    void withRedactionOffNothingIsReplaced() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("off"))) {
            Reply r = s.api().post("/v1/events", "{\"agent_id\":\"a\",\"metadata\":{\"to\":\"bob@example.com\"}}");
            JsonNode stored = s.api().get(r.header("Location")).json();
            assertThat(stored.at("/metadata/to").asText()).isEqualTo("bob@example.com");
            assertThat(stored.has("redactions")).isFalse();
        }
    }
}
