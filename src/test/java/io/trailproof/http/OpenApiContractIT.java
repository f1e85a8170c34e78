package io.trailproof.http;

import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.trailproof.testing.AnswerRecorder;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.SseClient;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the OpenAPI document true: drives every endpoint through its documented
 * answers against the real server with keys configured, records every answer at the HTTP level
 * ({@link AnswerRecorder}) and checks each against the document: the operation exists for that
 * path template and method, the status is documented, the content type is, required headers are
 * there and valid, and a JSON body validates against the response's schema (JSON Schema 2020-12).
 * Then the reverse: every documented operation and status was seen, but for the exceptions listed
 * in {@link #NOT_DRIVEN} with their reasons.
 */
class OpenApiContractIT {

    private static final String INGEST = "oa-ingest-key-1";
    private static final String READ = "oa-read-key-2";
    private static final String ADMIN = "oa-admin-key-3";
    private static final String APPROVE = "oa-approve-key-4";
    private static final int MAX_BODY = 65_536;

    /** Documented answers this test does not produce, each with the reason. */
    static final Map<String, String> NOT_DRIVEN = Map.of(
            "POST /v1/events 409", "needs a retry to arrive while the first request with its key is inside the "
                    + "ledger's commit: timing-dependent (IdempotencyIT covers it)",
            "POST /v1/batch 409", "as POST /v1/events 409",
            "POST /v1/decisions 409", "as POST /v1/events 409",
            "GET /checkpoint 404", "the empty tree is signed as the service starts: only a request in the first "
                    + "milliseconds, or a log whose signing is refused (CheckpointCrashIT), sees it",
            "POST /v1/admin/erasures 409", "answered in cluster mode only, which needs Kafka",
            "GET /v1/admin/erasures 409", "as POST /v1/admin/erasures 409",
            "GET /auth/login *", "sign-in needs an OpenID Connect provider; SignInIT drives it against one",
            "GET /auth/callback *", "as GET /auth/login",
            "POST /auth/logout *", "as GET /auth/login",
            "GET /auth/session *", "as GET /auth/login");

    @TempDir
    static Path dir;
    static TestTsa tsa;
    static InProcessServer server;
    /** A TSA URL on the allow-list where nothing listens: the documented 502 of POST /v1/timestamp. */
    static String deadTsaUrl;
    static final AnswerRecorder recorder = new AnswerRecorder();
    static Api api;
    static OpenApiContract contract;

    @BeforeAll
    static void start() throws Exception {
        contract = OpenApiContract.load();
        tsa = TestTsa.start();
        deadTsaUrl = TestTsa.deadUrl();
        server = InProcessServer.start(dir.resolve("data"), "auth.api-keys",
                INGEST + ":ingest," + READ + ":read," + ADMIN + ":admin,approver=" + APPROVE + ":approve",
                "timestamp.default-tsa-url", tsa.url(),
                "timestamp.allowed-tsa-urls", deadTsaUrl,
                "limits.max-body-bytes", Integer.toString(MAX_BODY),
                "checkpoint.interval", "PT0.2S",
                // The requests below name tree sizes and leaf positions of their own events; records of
                // reads would take positions between them (AccessTrailIT covers the trail).
                "access-trail.enabled", "false");
        api = server.api().recordingTo(recorder);
    }

    private static Reply call(String method, String pathAndQuery, String key, String contentType, byte[] body,
                              String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.base() + pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return api.send(b);
    }

    private static Reply get(String pathAndQuery, String key, String... headers) throws Exception {
        return call("GET", pathAndQuery, key, null, null, headers);
    }

    private static Reply post(String path, String key, String json, String... headers) throws Exception {
        return call("POST", path, key, "application/json", json == null ? null : json.getBytes(StandardCharsets.UTF_8),
                headers);
    }

    private static Reply expect(int status, Reply r) {
        assertThat(r.status()).as(r.raw().request().method() + " " + r.raw().request().uri() + ": " + r.body())
                .isEqualTo(status);
        return r;
    }

    /** A body over limits.max-body-bytes, announced with Expect: 100-continue so the 413 is read cleanly. */
    private static Reply tooLarge(String path, String key, String contentType) throws Exception {
        return tooLarge(path, key, contentType, "POST");
    }

    private static Reply tooLarge(String path, String key, String contentType, String method) throws Exception {
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + path)).expectContinue(true)
                .header("Content-Type", contentType).header("Authorization", "Bearer " + key)
                .method(method, HttpRequest.BodyPublishers.ofByteArray(new byte[MAX_BODY + 1])));
    }

    private static String event(String agent, String action) {
        return "{\"agent_id\":\"" + agent + "\",\"session_id\":\"s1\",\"action_type\":\"TOOL_CALL\",\"action_name\":\""
                + action + "\",\"action_status\":\"success\",\"duration_ms\":12,\"labels\":{\"env\":\"prod\"},"
                + "\"action_input\":{\"q\":\"refund order 42\"},\"metadata\":{\"email\":\"x\"}}";
    }

    @Test
    void realAnswersConformToTheDocument() throws Exception {
        emptyLog();
        List<String> ids = ingest();
        reads(ids);
        proofsAndExport(ids);
        erasures(ids);
        timestamps();
        policies();
        gates();
        stream();
        adminAndDocument();
        transparency();
        refusals(samples(ids));
        publicCheckpointsUnderKeys();
        draining(samples(ids));

        List<String> problems = new ArrayList<>();
        for (AnswerRecorder.Answer a : recorder.answers()) {
            problems.addAll(contract.problems(a).stream().map(p -> a + ": " + p).toList());
        }
        assertThat(problems).as("answers that disagree with the OpenAPI document").isEmpty();

        Set<String> seen = new TreeSet<>();
        for (AnswerRecorder.Answer a : recorder.answers()) {
            OpenApiContract.Operation op = contract.operation(a.method(), a.path());
            if (op != null) {
                seen.add(op.key() + " " + a.status());
            }
        }
        List<String> missing = new ArrayList<>();
        for (OpenApiContract.Operation op : contract.operations()) {
            if (NOT_DRIVEN.containsKey(op.key() + " *")) {
                continue;
            }
            op.node().get("responses").fieldNames().forEachRemaining(status -> {
                String key = op.key() + " " + status;
                if (!seen.contains(key) && !NOT_DRIVEN.containsKey(key)) {
                    missing.add(key);
                }
            });
        }
        assertThat(missing).as("documented answers never seen (add a request, or list it in NOT_DRIVEN with "
                + "the reason)").isEmpty();
        System.out.println("OpenApiContractIT: " + recorder.answers().size() + " answers validated, "
                + seen.size() + " documented (operation, status) pairs seen");
    }

    private void emptyLog() throws Exception {
        expect(200, get("/health", null));
        expect(409, post("/v1/timestamp", ADMIN, "{}"));
        expect(404, get("/v1/timestamps/verify", READ));
        expect(404, get("/tile/0/000", null));
    }

    private List<String> ingest() throws Exception {
        List<String> ids = new ArrayList<>();
        ids.add(expect(201, post("/v1/events", INGEST, event("agent-a", "search"))).json().get("id").asText());
        expect(201, post("/v1/events", INGEST, event("agent-a", "refund"), "Idempotency-Key", "k-1"));
        Reply replay = expect(201, post("/v1/events", INGEST, event("agent-a", "refund"), "Idempotency-Key", "k-1"));
        assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
        expect(422, post("/v1/events", INGEST, event("agent-a", "other"), "Idempotency-Key", "k-1"));
        expect(400, post("/v1/events", INGEST, "{\"agent_id\":\"a\",\"agent_id\":\"b\"}"));
        expect(400, post("/v1/events", INGEST, "{\"agent_id\":\"a\",\"colour\":\"red\"}"));
        expect(400, post("/v1/events", INGEST, event("a", "x"), "Idempotency-Key", "bad key"));
        expect(415, call("POST", "/v1/events", INGEST, "text/plain", event("a", "x").getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/events", INGEST, "application/json"));

        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 300; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"agent-b\",\"action_type\":\"LLM_CALL\","
                    + "\"action_name\":\"chat\",\"timestamp\":\"2026-11-0" + (1 + i % 9) + "T10:00:00Z\"}");
        }
        expect(201, post("/v1/batch", INGEST, batch.append("]").toString()));
        expect(201, post("/v1/batch", INGEST, "[" + event("agent-c", "a") + "]", "Idempotency-Key", "b-1"));
        expect(422, post("/v1/batch", INGEST, "[" + event("agent-c", "b") + "]", "Idempotency-Key", "b-1"));
        expect(207, post("/v1/batch", INGEST, "[" + event("agent-c", "c") + ",{\"agent_id\":\"\"}]"));
        expect(400, post("/v1/batch", INGEST, "[]"));
        expect(415, call("POST", "/v1/batch", INGEST, "text/plain", "[]".getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/batch", INGEST, "application/json"));

        String span = "{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\","
                + "\"name\":\"tool\",\"startTimeUnixNano\":\"1700000000000000000\",\"endTimeUnixNano\":"
                + "\"1700000000500000000\",\"attributes\":[{\"key\":\"gen_ai.operation.name\",\"value\":"
                + "{\"stringValue\":\"execute_tool\"}}]}";
        String badSpan = span.replace("5b8efff798038103d269b633813fc60c", "00000000000000000000000000000000");
        expect(200, post("/v1/traces", INGEST, "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[" + span + "]}]}]}"));
        Reply partial = expect(200, post("/v1/traces", INGEST, "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
                + badSpan + "]}]}]}"));
        assertThat(partial.json().at("/partialSuccess/rejectedSpans").asText()).isEqualTo("1");
        expect(400, post("/v1/traces", INGEST, "{\"resourceSpans\": 7"));
        byte[] protobuf = ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(Span.newBuilder()
                        .setTraceId(ByteString.copyFrom(new byte[]{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}))
                        .setSpanId(ByteString.copyFrom(new byte[]{1, 2, 3, 4, 5, 6, 7, 8})).setName("proto-span")
                        .setStartTimeUnixNano(1_700_000_000_000_000_000L).setEndTimeUnixNano(1_700_000_001_000_000_000L))))
                .build().toByteArray();
        expect(200, call("POST", "/v1/traces", INGEST, "application/x-protobuf", protobuf));
        expect(400, call("POST", "/v1/traces", INGEST, "application/x-protobuf", new byte[]{(byte) 0xff, 1, 2}));
        expect(415, call("POST", "/v1/traces", INGEST, "text/plain", "x".getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/traces", INGEST, "application/json"));
        return ids;
    }

    private void reads(List<String> ids) throws Exception {
        Reply list = expect(200, get("/v1/events?agent_id=agent-a&label.env=prod&order=asc&limit=10", READ));
        assertThat(list.header("X-Total-Count")).isEqualTo("2");
        expect(200, get("/v1/events?format=ndjson&agent_id=agent-b", READ));
        expect(200, get("/v1/events?format=csv&since=2026-01-01", READ));
        expect(400, get("/v1/events?limit=0", READ));
        JsonNode cluster = Api.JSON.readTree(expect(200, get("/v1/cluster", READ)).body());
        assertThat(cluster.get("mode").asText()).isEqualTo("embedded");
        assertThat(cluster.get("applied_size").asLong()).isPositive();
        expect(400, get("/v1/events?colour=red", READ));
        expect(200, get("/v1/events/" + ids.get(0), READ));
        expect(400, get("/v1/events/not-an-id", READ));
        expect(404, get("/v1/events/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", READ));
        Reply search = expect(200, get("/v1/search?q=refund&facets=agent_id,action_type,label.env&histogram=PT1H", READ));
        assertThat(search.json().get("results")).isNotEmpty();
        expect(200, get("/v1/search?q=chat&sort=-timestamp&facets=action_status&histogram=P1D&limit=5", READ));
        expect(200, get("/v1/search?q=chat&format=ndjson", READ));
        expect(200, get("/v1/search?q=chat&format=csv", READ));
        expect(400, get("/v1/search?q=(unclosed", READ));
        expect(400, get("/v1/search?q=x&histogram=P1M", READ));
        expect(200, get("/v1/agents", READ));
        expect(200, get("/v1/stats", READ));
    }

    private void proofsAndExport(List<String> ids) throws Exception {
        expect(200, get("/v1/verify?agent_id=agent-a", READ));
        expect(400, get("/v1/verify", READ));
        expect(404, get("/v1/verify?agent_id=nobody", READ));
        expect(200, get("/v1/merkle/root", READ));
        expect(200, get("/v1/merkle/root?tree_size=1", READ));
        expect(400, get("/v1/merkle/root?tree_size=99999999", READ));
        expect(200, get("/v1/merkle/proof?event_id=" + ids.get(0), READ));
        expect(200, get("/v1/merkle/proof?event_id=" + ids.get(0) + "&tree_size=2", READ));
        expect(200, get("/v1/merkle/proof?event_id=" + ids.get(0) + "&format=tlog-proof", READ));
        expect(400, get("/v1/merkle/proof?event_id=nope", READ));
        expect(404, get("/v1/merkle/proof?event_id=019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", READ));
        expect(200, get("/v1/merkle/consistency?from=1&to=3", READ));
        expect(200, get("/v1/merkle/consistency?from=2", READ));
        expect(400, get("/v1/merkle/consistency", READ));
        expect(200, get("/v1/export?agent_id=agent-a", READ));
        expect(400, get("/v1/export", READ));
        expect(404, get("/v1/export?agent_id=nobody", READ));
    }

    /** Erases agent-a's first event; its reads, its chain's verification and its package show it erased. */
    private void erasures(List<String> ids) throws Exception {
        String erase = "{\"event_ids\":[\"" + ids.get(0) + "\"],\"fields\":[\"action_input\",\"metadata\"],"
                + "\"reason\":\"data subject request\"";
        JsonNode dry = expect(200, post("/v1/admin/erasures", ADMIN, erase + ",\"dry_run\":true}")).json();
        assertThat(dry.get("would_erase").asInt()).isEqualTo(1);
        expect(400, post("/v1/admin/erasures", ADMIN, "{\"event_ids\":[\"" + ids.get(0) + "\"]}"));
        expect(404, post("/v1/admin/erasures", ADMIN, "{\"event_ids\":[\"019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00\"],"
                + "\"reason\":\"r\"}"));
        expect(415, call("POST", "/v1/admin/erasures", ADMIN, "text/plain", erase.getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/admin/erasures", ADMIN, "application/json"));
        JsonNode done = expect(200, post("/v1/admin/erasures", ADMIN, erase + "}")).json();
        assertThat(done.get("erased").asInt()).isEqualTo(1);
        Reply list = expect(200, get("/v1/admin/erasures?limit=5", ADMIN));
        assertThat(list.header("X-Total-Count")).isEqualTo("1");
        // The record names the key as the access log does (key- and 8 hex digits of its SHA-256), never the key.
        String keyName = "key-" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(ADMIN.getBytes(StandardCharsets.UTF_8))).substring(0, 8);
        JsonNode record = expect(200, get("/v1/events/" + done.get("erasure_id").asText(), READ)).json();
        assertThat(record.at("/action_input/key").asText()).isEqualTo(keyName);
        assertThat(record.toString()).doesNotContain(ADMIN);
        expect(400, get("/v1/admin/erasures?limit=0", ADMIN));
        assertThat(expect(200, get("/v1/events/" + ids.get(0), READ)).json().at("/erased/erasure_id").asText())
                .isEqualTo(done.get("erasure_id").asText());
        assertThat(expect(200, get("/v1/verify?agent_id=agent-a", READ)).json().get("erased").asInt()).isEqualTo(1);
        expect(200, get("/v1/export?agent_id=agent-a", READ));
    }

    private void timestamps() throws Exception {
        expect(201, post("/v1/timestamp", ADMIN, "{}"));
        expect(201, call("POST", "/v1/timestamp", ADMIN, null, null));
        expect(400, post("/v1/timestamp", ADMIN, "{\"tsa_url\":\"ftp://tsa.example/\"}"));
        expect(502, post("/v1/timestamp", ADMIN, "{\"tsa_url\":\"" + deadTsaUrl + "\"}"));
        expect(415, call("POST", "/v1/timestamp", ADMIN, "text/plain", "{}".getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/timestamp", ADMIN, "application/json"));
        expect(200, get("/v1/timestamps?limit=1", READ));
        expect(400, get("/v1/timestamps?offset=-1", READ));
        expect(200, get("/v1/timestamps/verify", READ));
        expect(400, get("/v1/timestamps/verify?id=a&id=b", READ));
        expect(200, get("/v1/export?agent_id=agent-a", READ)); // now with timestamps and a checkpoint
    }

    private void policies() throws Exception {
        expect(200, call("POST", "/v1/policy/check", READ, null, null));
        expect(200, post("/v1/policy/check", READ, "{\"agent_id\":\"agent-a\",\"policies\":[{\"name\":\"p\",\"rules\":"
                + "[{\"name\":\"no-refund\",\"type\":\"absence\",\"severity\":\"warn\",\"deny\":\"refund\"}]}]}"));
        expect(400, post("/v1/policy/check", READ, "{\"colour\":1}"));
        expect(404, post("/v1/policy/check", READ, "{\"agent_id\":\"nobody\"}"));
        expect(415, call("POST", "/v1/policy/check", READ, "text/plain", "{}".getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/policy/check", READ, "application/json"));
        expect(200, get("/v1/coverage?agent_id=agent-a", READ));
        expect(400, get("/v1/coverage", READ));
        expect(404, get("/v1/coverage?agent_id=nobody", READ));
    }

    private void gates() throws Exception {
        expect(404, get("/v1/admin/gate-policy", READ));
        byte[] policy = ("{\"policies\":[{\"name\":\"money\",\"rules\":[{\"name\":\"big\",\"type\":\"boundary\","
                + "\"allow_actions\":[\"lookup\"],\"effect\":\"ask\",\"reason\":\"a person decides\"}]}]}")
                .getBytes(StandardCharsets.UTF_8);
        expect(201, call("PUT", "/v1/admin/gate-policy", ADMIN, "application/json", policy));
        expect(200, get("/v1/admin/gate-policy", READ));
        expect(400, call("PUT", "/v1/admin/gate-policy", ADMIN, "application/json",
                "{\"policies\":[{\"name\":\"p\",\"rules\":[{\"name\":\"r\",\"type\":\"boundary\"}]}]}"
                        .getBytes(StandardCharsets.UTF_8)));
        expect(415, call("PUT", "/v1/admin/gate-policy", ADMIN, "text/plain", policy));
        expect(413, tooLarge("/v1/admin/gate-policy", ADMIN, "application/json", "PUT"));

        Reply allow = expect(201, post("/v1/decisions", INGEST, "{\"agent_id\":\"gated\",\"action_name\":\"lookup\"}",
                "Idempotency-Key", "oa-decision-1"));
        expect(201, post("/v1/decisions", INGEST, "{\"agent_id\":\"gated\",\"action_name\":\"lookup\"}",
                "Idempotency-Key", "oa-decision-1"));
        expect(422, post("/v1/decisions", INGEST, "{\"agent_id\":\"gated\",\"action_name\":\"other\"}",
                "Idempotency-Key", "oa-decision-1"));
        expect(400, post("/v1/decisions", INGEST, "{\"agent_id\":\"gated\",\"colour\":1}"));
        expect(415, call("POST", "/v1/decisions", INGEST, "text/plain", "{}".getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/decisions", INGEST, "application/json"));
        String allowId = Responses.MAPPER.readTree(allow.body()).get("decision_id").asText();
        Reply ask = expect(201, post("/v1/decisions", INGEST, "{\"agent_id\":\"gated\",\"action_name\":\"pay\","
                + "\"action_input\":{\"amount\":5000}}"));
        String askId = Responses.MAPPER.readTree(ask.body()).get("decision_id").asText();
        expect(200, get("/v1/decisions/" + allowId, INGEST));
        expect(200, get("/v1/decisions/" + askId + "?wait=PT0.2S", INGEST));
        expect(400, get("/v1/decisions/" + askId + "?wait=PT61S", INGEST));
        expect(404, get("/v1/decisions/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", INGEST));
        expect(200, get("/v1/approvals?state=pending", APPROVE));
        expect(400, get("/v1/approvals?state=all", APPROVE));
        expect(400, post("/v1/approvals/" + askId, APPROVE, "{\"approve\":\"yes\"}"));
        expect(404, post("/v1/approvals/019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", APPROVE, "{\"approve\":true}"));
        expect(415, call("POST", "/v1/approvals/" + askId, APPROVE, "text/plain", "{}".getBytes(StandardCharsets.UTF_8)));
        expect(413, tooLarge("/v1/approvals/" + askId, APPROVE, "application/json"));
        expect(201, post("/v1/approvals/" + askId, APPROVE, "{\"approve\":true,\"comment\":\"within budget\"}"));
        expect(409, post("/v1/approvals/" + askId, APPROVE, "{\"approve\":true}"));
    }

    private void stream() throws Exception {
        try (SseClient sse = SseClient.open(server.server().port(), "/v1/stream?from=0&agent_id=agent-a",
                "Authorization: Bearer " + READ)) {
            assertThat(sse.status()).isEqualTo(200);
            SseClient.Frame first = sse.nextEvent();
            // The event's data is the stored event: it must validate as one.
            JsonNode schema = contract.document().at("/components/schemas/StoredEvent");
            assertThat(contract.validate(schema, Api.JSON.readTree(first.data()))).isEmpty();
            recorder.record("GET", "/v1/stream", "from=0&agent_id=agent-a", sse.status(),
                    headers(Map.of("Content-Type", sse.header("content-type"))), "");
        }
        expect(400, get("/v1/stream?since=2026-01-01", READ));
        expect(400, get("/v1/stream", READ, "Last-Event-ID", "x"));
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + READ)
                .buildAsync(URI.create("ws://127.0.0.1:" + server.server().port() + "/v1/stream"),
                        new WebSocket.Listener() {
                        }).get(10, TimeUnit.SECONDS);
        // buildAsync completes only after a 101 Switching Protocols.
        recorder.record("GET", "/v1/stream", null, 101, headers(Map.of()), "");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(10, TimeUnit.SECONDS);
    }

    private static HttpHeaders headers(Map<String, String> values) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        values.forEach((k, v) -> map.put(k, List.of(v)));
        return HttpHeaders.of(map, (k, v) -> true);
    }

    private void adminAndDocument() throws Exception {
        expect(200, get("/v1/admin/index", ADMIN));
        // A form post (what a page of another site can send) starts nothing.
        expect(415, call("POST", "/v1/admin/index/rebuild", ADMIN, "text/plain", new byte[0]));
        expect(202, call("POST", "/v1/admin/index/rebuild", ADMIN, null, null));
        expect(200, get("/v1/admin/index", ADMIN));
        Reply doc = expect(200, get("/v1/openapi.json", READ));
        assertThat(doc.header("Content-Type")).startsWith("application/json");
        assertThat(Api.JSON.readTree(doc.body())).isEqualTo(contract.document());
        Reply backup = expect(200, get("/v1/admin/backup", ADMIN));
        assertThat(backup.header("X-Tree-Size")).isNotBlank();
        Reply metrics = expect(200, get("/metrics", READ));
        assertThat(metrics.body()).contains("trailproof_tree_size");
    }

    private void transparency() throws Exception {
        long treeSize = Api.JSON.readTree(get("/v1/merkle/root", READ).body()).get("tree_size").asLong();
        long[] signed = {0};
        Await.untilTrue("a checkpoint of the whole tree", Duration.ofSeconds(30), () -> {
            Reply checkpoint = get("/checkpoint", null);
            if (checkpoint.status() == 200) {
                signed[0] = Long.parseLong(checkpoint.body().split("\n")[1]);
            }
            return signed[0] >= treeSize;
        });
        long size = signed[0];
        assertThat(size).as("a checkpoint of the whole tree was signed").isGreaterThanOrEqualTo(treeSize);
        assertThat(size).isBetween(257L, 511L);
        int width = (int) (size - 256);
        expect(200, get("/v1/checkpoint/key", null));
        expect(200, get("/tile/0/000", null));
        expect(200, get("/tile/0/001.p/" + width, null));
        expect(200, get("/tile/entries/000", null));
        expect(200, get("/tile/entries/001.p/" + width, null));
        expect(200, get("/tile/1/000.p/1", null));
        expect(404, get("/tile/0/x999/999", null));
        expect(404, get("/tile/0/abc", null));
        expect(404, get("/tile/entries/007.p/3", null));
        expect(404, get("/tile/0/005.p/3", null));
        expect(404, get("/tile/entries/009", null));
        expect(404, get("/tile/entries/000.p/300", null));
    }

    /** One well-formed request per API operation: method, path and query, JSON body or null. */
    private record Sample(String method, String pathAndQuery, String body, String role) {
    }

    private List<Sample> samples(List<String> ids) {
        String id = ids.get(0);
        return List.of(
                new Sample("POST", "/v1/events", event("agent-z", "x"), "ingest"),
                new Sample("POST", "/v1/batch", "[" + event("agent-z", "x") + "]", "ingest"),
                new Sample("POST", "/v1/traces", "{\"resourceSpans\":[]}", "ingest"),
                new Sample("GET", "/v1/events", null, "read"),
                new Sample("GET", "/v1/events/" + id, null, "read"),
                new Sample("GET", "/v1/search?q=x", null, "read"),
                new Sample("GET", "/v1/agents", null, "read"),
                new Sample("GET", "/v1/stats", null, "read"),
                new Sample("GET", "/v1/coverage?agent_id=agent-a", null, "read"),
                new Sample("GET", "/v1/cluster", null, "read"),
                new Sample("GET", "/v1/verify?agent_id=agent-a", null, "read"),
                new Sample("GET", "/v1/merkle/root", null, "read"),
                new Sample("GET", "/v1/merkle/proof?event_id=" + id, null, "read"),
                new Sample("GET", "/v1/merkle/consistency?from=1", null, "read"),
                new Sample("GET", "/v1/export?agent_id=agent-a", null, "read"),
                new Sample("POST", "/v1/timestamp", "{}", "admin"),
                new Sample("GET", "/v1/timestamps", null, "read"),
                new Sample("GET", "/v1/timestamps/verify", null, "read"),
                new Sample("POST", "/v1/policy/check", "{}", "read"),
                new Sample("POST", "/v1/decisions", "{\"agent_id\":\"gated\"}", "ingest"),
                new Sample("GET", "/v1/decisions/" + id, null, "ingest"),
                new Sample("GET", "/v1/approvals", null, "approve"),
                new Sample("POST", "/v1/approvals/" + id, "{\"approve\":true}", "approve"),
                new Sample("PUT", "/v1/admin/gate-policy", "{\"policies\":[]}", "admin"),
                new Sample("GET", "/v1/admin/gate-policy", null, "read"),
                new Sample("GET", "/v1/stream?from=0", null, "read"),
                new Sample("GET", "/v1/admin/index", null, "admin"),
                new Sample("POST", "/v1/admin/index/rebuild", null, "admin"),
                new Sample("GET", "/v1/openapi.json", null, "read"),
                new Sample("GET", "/metrics", null, "read"),
                new Sample("GET", "/v1/admin/backup", null, "admin"),
                new Sample("POST", "/v1/admin/erasures", "{}", "admin"),
                new Sample("GET", "/v1/admin/erasures", null, "admin"),
                new Sample("GET", "/health", null, "none"),
                new Sample("GET", "/checkpoint", null, "public"),
                new Sample("GET", "/v1/checkpoint/key", null, "public"),
                new Sample("GET", "/tile/0/000", null, "public"),
                new Sample("GET", "/tile/0/001.p/1", null, "public"),
                new Sample("GET", "/tile/entries/000", null, "public"),
                new Sample("GET", "/tile/entries/001.p/1", null, "public"));
    }

    private static Reply send(Sample s, String key) throws Exception {
        return s.body() == null ? call(s.method(), s.pathAndQuery(), key, null, null)
                : call(s.method(), s.pathAndQuery(), key, "application/json", s.body().getBytes(StandardCharsets.UTF_8));
    }

    /** 401 without a key and 403 with a key that lacks the role, on every guarded operation; 404 and 405. */
    private void refusals(List<Sample> samples) throws Exception {
        for (Sample s : samples) {
            if (s.method().equals("GET")) {
                // Every read takes min_tree_size, and refuses one that is not a size.
                String key = switch (s.role()) {
                    case "read" -> READ;
                    case "admin" -> ADMIN;
                    case "ingest" -> INGEST;
                    case "approve" -> APPROVE;
                    default -> null;
                };
                String q = s.pathAndQuery() + (s.pathAndQuery().contains("?") ? "&" : "?");
                expect(400, get(q + "min_tree_size=many", key));
                if (!s.pathAndQuery().startsWith("/v1/stream")) { // a stream's 200 never ends
                    Reply reached = get(q + "min_tree_size=1", key);
                    assertThat(reached.status()).as(s.pathAndQuery()).isNotIn(400, 503);
                }
                expect(400, get(s.pathAndQuery(), key, "X-Min-Tree-Size", "-1"));
            }
            if (s.role().equals("none") || s.role().equals("public")) {
                continue;
            }
            Reply noKey = expect(401, send(s, null));
            assertThat(noKey.header("WWW-Authenticate")).isEqualTo("Bearer");
            expect(401, send(s, "not-a-key"));
            expect(403, send(s, s.role().equals("read") ? INGEST : READ));
        }
        expect(401, get("/v1/no-such-endpoint", null));
        expect(404, get("/v1/no-such-endpoint", READ));
        expect(405, call("DELETE", "/v1/events", ADMIN, null, null));
        expect(405, call("PUT", "/v1/merkle/root", ADMIN, null, null));
    }

    /** With checkpoint.public=false the transparency endpoints are under read: 401 and 403 there too. */
    private void publicCheckpointsUnderKeys() throws Exception {
        try (InProcessServer guarded = InProcessServer.start(dir.resolve("guarded"), "auth.api-keys",
                INGEST + ":ingest," + READ + ":read", "checkpoint.public", "false")) {
            Api other = guarded.api().recordingTo(recorder);
            for (String path : List.of("/checkpoint", "/v1/checkpoint/key", "/tile/0/000", "/tile/0/001.p/1",
                    "/tile/entries/000", "/tile/entries/001.p/1")) {
                for (String key : new String[]{null, INGEST}) {
                    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(other.base() + path)).GET();
                    if (key != null) {
                        b.header("Authorization", "Bearer " + key);
                    }
                    expect(key == null ? 401 : 403, other.send(b));
                }
            }
        }
    }

    /**
     * 503 on every operation behind the API: a request whose body never comes holds the stop in its
     * wait for requests in flight, and meanwhile every new request is refused.
     */
    private void draining(List<Sample> samples) throws Exception {
        try (Socket held = new Socket("127.0.0.1", server.server().port())) {
            OutputStream out = held.getOutputStream();
            out.write(("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer " + INGEST + "\r\nContent-Length: 100\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Await.until("the request whose body never comes is in flight", Duration.ofSeconds(30),
                    () -> server.server().requestsInFlight() >= 1);
            Thread stopper = new Thread(() -> {
                try {
                    server.close();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            stopper.start();
            Await.untilTrue("the service is stopping", Duration.ofSeconds(30), () -> get("/health", null).status() == 503);
            for (Sample s : samples) {
                Reply r = expect(503, send(s, ADMIN));
                assertThat(r.header("Retry-After")).isNotNull();
            }
            held.close();
            stopper.join(60_000);
        }
    }
}
