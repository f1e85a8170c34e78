package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /v1/policy/check} against the real server (src/site/redaction.md). */
class PolicyCheckIT {

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"));
        api = server.api();
        Reply batch = api.post("/v1/batch", """
                [{"agent_id":"p1","session_id":"s","action_type":"TOOL_CALL","action_name":"fetch","timestamp":"2026-01-05T10:00:00Z","duration_ms":90000},
                 {"agent_id":"p1","session_id":"s","action_type":"TOOL_RESULT","action_name":"fetch","timestamp":"2026-01-05T10:00:01Z"},
                 {"agent_id":"p1","session_id":"s","action_type":"TOOL_CALL","action_name":"delete_user","timestamp":"2026-01-05T10:00:02Z","labels":{"env":"prod"}},
                 {"agent_id":"p2","action_type":"LLM","action_name":"think","timestamp":"2026-01-05T10:00:00Z"},
                 {"agent_id":"p2","action_type":"LLM","action_name":"think","timestamp":"2026-01-05T10:00:01Z"}]
                """);
        assertThat(batch.status()).as(batch.body()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static JsonNode result(JsonNode answer, String rule) {
        for (JsonNode r : answer.get("results")) {
            if (r.get("rule").asText().equals(rule)) {
                return r;
            }
        }
        throw new AssertionError("no result for " + rule + " in " + answer);
    }

    @Test
    void withoutABodyTheBuiltInPoliciesRun() throws Exception {
        Reply r = api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/policy/check"))
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        JsonNode answer = r.json();
        assertThat(answer.get("passed").asBoolean()).isFalse();
        assertThat(answer.get("results")).hasSize(6);
        JsonNode chain = result(answer, "chain_integrity");
        assertThat(chain.get("passed").asBoolean()).isTrue();
        assertThat(chain.get("type").asText()).isEqualTo("builtin");
        assertThat(chain.get("severity").asText()).isEqualTo("fail");
        JsonNode slow = result(answer, "duration_outliers");
        assertThat(slow.get("violations").asLong()).isEqualTo(1);
        JsonNode example = slow.get("examples").get(0);
        assertThat(example.get("agent_id").asText()).isEqualTo("p1");
        assertThat(example.get("sequence").asLong()).isEqualTo(1);
        assertThat(example.get("event_id").asText()).hasSize(36);
        assertThat(example.get("message").asText()).contains("90000 ms");
        // the delete_user call is never answered
        assertThat(result(answer, "event_completeness").get("violations").asLong()).isEqualTo(1);

        assertThat(api.post("/v1/policy/check", "{}").json()).isEqualTo(answer);
    }

    @Test
    void aDocumentNarrowedByPolicyAgentAndTime() throws Exception {
        String policies = """
                "policies": [
                  {"name": "safety", "rules": [
                    {"name": "no-delete", "type": "absence", "severity": "fail", "deny": "delete_user", "label_filter": {"env": "prod"}}]},
                  {"name": "style", "rules": [
                    {"name": "think-less", "type": "rate", "severity": "warn", "per": "1m", "max": 1}]}]""";
        JsonNode both = api.post("/v1/policy/check", "{" + policies + "}").json();
        assertThat(both.get("passed").asBoolean()).isFalse();
        assertThat(result(both, "no-delete").get("violations").asLong()).isEqualTo(1);
        assertThat(result(both, "think-less").get("violations").asLong()).isEqualTo(3); // p1's 2nd and 3rd, p2's 2nd
        JsonNode style = api.post("/v1/policy/check", "{" + policies + ", \"policy\": \"style\"}").json();
        assertThat(style.get("passed").asBoolean()).isTrue(); // a warn rule never fails the check
        assertThat(style.get("results")).hasSize(1);
        JsonNode p2 = api.post("/v1/policy/check", "{" + policies + ", \"agent_id\": \"p2\"}").json();
        assertThat(p2.get("passed").asBoolean()).isTrue();
        assertThat(p2.get("events_checked").asLong()).isEqualTo(2);
        JsonNode early = api.post("/v1/policy/check", "{" + policies
                + ", \"since\": \"2026-01-05T10:00:00Z\", \"until\": \"2026-01-05T10:00:02Z\"}").json();
        assertThat(early.get("events_checked").asLong()).isEqualTo(4);
        assertThat(result(early, "no-delete").get("violations").asLong()).isZero();
    }

    @Test
    void badInputIsA400ThatNamesTheFault() throws Exception {
        Reply malformed = api.post("/v1/policy/check", """
                {"policies": [{"name": "safety", "rules": [{"name": "slow", "type": "sequence", "severity": "fail",
                  "when": "a", "expect": "b", "within": "soon"}]}]}""");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.json().get("error").asText())
                .startsWith("policy 'safety', rule 'slow': key 'within' must be a duration");
        assertError(api.post("/v1/policy/check", "{\"polices\": []}"), 400, "unknown field polices");
        assertError(api.post("/v1/policy/check", "{\"policy\": \"nope\"}"), 400, "no policy is named 'nope'");
        assertError(api.post("/v1/policy/check", "{\"since\": \"yesterday\"}"), 400, "since must be an ISO 8601");
        assertError(api.post("/v1/policy/check", "{\"since\": \"2026-02-01T00:00:00Z\", \"until\": \"2026-01-01T00:00:00Z\"}"),
                400, "is after until");
        assertError(api.post("/v1/policy/check", "[]"), 400, "must be a JSON object");
        assertError(api.post("/v1/policy/check", "{\"policies\": {}}"), 400, "'policies' must be a non-empty list");
        assertError(api.post("/v1/policy/check", "{\"agent_id\": \"ghost\"}"), 404, "no agent with id ghost");
        assertThat(api.get("/v1/policy/check").status()).isEqualTo(405);
    }

    private static void assertError(Reply r, int status, String text) {
        assertThat(r.status()).as(r.body()).isEqualTo(status);
        assertThat(r.json().get("error").asText()).contains(text);
    }

    @Test
    void needsTheReadRole() throws Exception {
        try (InProcessServer keyed = InProcessServer.start(dir.resolve("keyed"), "auth.api-keys",
                "r-secret-1234:read,i-secret-5678:ingest")) {
            String base = "http://127.0.0.1:" + keyed.server().port() + "/v1/policy/check";
            Reply reader = keyed.api().send(HttpRequest.newBuilder(URI.create(base))
                    .header("Authorization", "Bearer r-secret-1234").POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(reader.status()).as(reader.body()).isEqualTo(200);
            assertThat(reader.json().get("passed").asBoolean()).isTrue();
            Reply ingester = keyed.api().send(HttpRequest.newBuilder(URI.create(base))
                    .header("Authorization", "Bearer i-secret-5678").POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(ingester.status()).isEqualTo(403);
            Reply nobody = keyed.api().send(HttpRequest.newBuilder(URI.create(base)).POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(nobody.status()).isEqualTo(401);
        }
    }
}
