package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Malformed requests over every endpoint and parameter, and a seeded random mutator of event and
 * batch bodies. Every refusal must be a 4xx with a non-empty {@code {"error"}} that changed nothing;
 * nothing may ever be a 5xx or hang; everything accepted must be retrievable and verify.
 */
class FuzzIT {

    private static final int MAX_BODY = 256 * 1024;
    private static final int MAX_BATCH = 100;
    private static final long SEED = 0x7EA11_5EC_0006L;
    private static final int MUTATED_BODIES = 10_000;

    @TempDir
    static Path dir;
    static InProcessServer server;
    static Api api;
    static String base;
    static String knownId;
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    static void start() throws Exception {
        server = InProcessServer.start(dir.resolve("data"), "limits.max-body-bytes", String.valueOf(MAX_BODY),
                "limits.max-batch-events", String.valueOf(MAX_BATCH));
        api = server.api();
        base = "http://127.0.0.1:" + server.server().port();
        for (int i = 0; i < 5; i++) {
            knownId = api.post("/v1/events", "{\"agent_id\":\"fuzz-base\",\"action_type\":\"SEED\"}").json().get("id").asText();
        }
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** One malformed request. */
    record Case(String name, String method, String path, String contentType, byte[] body) {
        static Case post(String name, String path, String json) {
            return new Case(name, "POST", path, "application/json", json.getBytes(StandardCharsets.UTF_8));
        }

        static Case postBytes(String name, String path, byte[] body) {
            return new Case(name, "POST", path, "application/json", body);
        }

        static Case get(String name, String pathAndQuery) {
            return new Case(name, "GET", pathAndQuery, null, null);
        }
    }

    static HttpResponse<String> send(Case c) throws Exception {
        return send(CLIENT, c);
    }

    /** Sends with a 30 s timeout: a request that gets no answer in that time is a hang and fails the test. */
    static HttpResponse<String> send(HttpClient client, Case c) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + c.path())).timeout(Duration.ofSeconds(30));
        b.method(c.method(), c.body() == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofByteArray(c.body()));
        if (c.contentType() != null) {
            b.header("Content-Type", c.contentType());
        }
        if (c.body() != null && c.body().length > MAX_BODY) {
            // The server refuses a body over the limit on its declared length and closes the
            // connection; without waiting for 100-continue the client may still be uploading then,
            // and its write is reset before it reads the 413 (as in LedgerEndpointsIT).
            b.expectContinue(true);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String nest(int depth) {
        return "{\"a\":".repeat(depth - 1) + "1" + "}".repeat(depth - 1);
    }

    static byte[] withBytes(String before, byte[] raw, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
        out.writeBytes(raw);
        out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    static String event(String fields) {
        return "{\"agent_id\":\"fuzz-bad\"" + (fields.isEmpty() ? "" : "," + fields) + "}";
    }

    static List<Case> existingEndpointCases() {
        String ev = "/v1/events";
        String unknownV7 = "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00";
        List<Case> c = new ArrayList<>();
        // Truncated and malformed JSON.
        c.add(Case.post("truncated after value", ev, "{\"agent_id\":\"a\""));
        c.add(Case.post("truncated inside string", ev, "{\"agent_id\":\"a"));
        c.add(Case.post("truncated after colon", ev, "{\"agent_id\":"));
        c.add(Case.post("lone brace", ev, "{"));
        c.add(Case.post("trailing comma", ev, "{\"agent_id\":\"a\",}"));
        c.add(Case.post("single quotes", ev, "{'agent_id':'a'}"));
        c.add(Case.post("comment", ev, "/*x*/{\"agent_id\":\"a\"}"));
        c.add(Case.post("NaN", ev, event("\"duration_ms\":NaN")));
        c.add(Case.post("two JSON values", ev, "{\"agent_id\":\"a\"}{\"agent_id\":\"b\"}"));
        c.add(Case.post("unquoted key", ev, "{agent_id:\"a\"}"));
        // Not an object.
        c.add(Case.post("top-level array", ev, "[{\"agent_id\":\"a\"}]"));
        c.add(Case.post("top-level string", ev, "\"agent_id\""));
        c.add(Case.post("top-level null", ev, "null"));
        c.add(Case.post("top-level number", ev, "42"));
        c.add(Case.post("empty body", ev, ""));
        c.add(Case.post("whitespace body", ev, "  \n\t "));
        // Each field with the wrong type.
        c.add(Case.post("agent_id number", ev, "{\"agent_id\":1}"));
        c.add(Case.post("agent_id null", ev, "{\"agent_id\":null}"));
        c.add(Case.post("agent_id object", ev, "{\"agent_id\":{\"x\":\"a\"}}"));
        c.add(Case.post("agent_id array", ev, "{\"agent_id\":[\"a\"]}"));
        c.add(Case.post("agent_id boolean", ev, "{\"agent_id\":true}"));
        c.add(Case.post("agent_id missing", ev, "{\"action_type\":\"X\"}"));
        c.add(Case.post("session_id number", ev, event("\"session_id\":7")));
        c.add(Case.post("source object", ev, event("\"source\":{}")));
        c.add(Case.post("capture_method array", ev, event("\"capture_method\":[]")));
        c.add(Case.post("action_type boolean", ev, event("\"action_type\":false")));
        c.add(Case.post("action_name number", ev, event("\"action_name\":1.5")));
        c.add(Case.post("action_status object", ev, event("\"action_status\":{\"a\":1}")));
        c.add(Case.post("error_message number", ev, event("\"error_message\":404")));
        c.add(Case.post("action_input string", ev, event("\"action_input\":\"{}\"")));
        c.add(Case.post("action_output array", ev, event("\"action_output\":[1,2]")));
        c.add(Case.post("metadata number", ev, event("\"metadata\":3")));
        c.add(Case.post("timestamp number", ev, event("\"timestamp\":1732269600")));
        c.add(Case.post("timestamp not a date", ev, event("\"timestamp\":\"yesterday\"")));
        c.add(Case.post("timestamp impossible date", ev, event("\"timestamp\":\"2026-02-30T10:00:00Z\"")));
        c.add(Case.post("duration_ms string", ev, event("\"duration_ms\":\"5\"")));
        c.add(Case.post("duration_ms negative", ev, event("\"duration_ms\":-1")));
        c.add(Case.post("duration_ms fraction", ev, event("\"duration_ms\":1.5")));
        c.add(Case.post("duration_ms above 2^53", ev, event("\"duration_ms\":9007199254740993")));
        c.add(Case.post("labels array", ev, event("\"labels\":[\"a\"]")));
        c.add(Case.post("labels value number", ev, event("\"labels\":{\"env\":1}")));
        c.add(Case.post("labels value object", ev, event("\"labels\":{\"env\":{}}")));
        // Numbers RFC 8785 cannot hash as sent.
        c.add(Case.post("integer above 2^53", ev, event("\"metadata\":{\"n\":9007199254740993}")));
        c.add(Case.post("20-digit integer", ev, event("\"action_input\":{\"n\":12345678901234567890}")));
        c.add(Case.post("too many digits", ev, event("\"metadata\":{\"x\":0.30000000000000001}")));
        c.add(Case.post("number overflows double", ev, event("\"metadata\":{\"x\":1e400}")));
        c.add(Case.post("negative integer below -2^53", ev, event("\"metadata\":{\"x\":-9007199254740993}")));
        // Unicode.
        c.add(Case.post("lone high surrogate", ev, event("\"action_name\":\"\\ud800\"")));
        c.add(Case.post("lone low surrogate", ev, event("\"action_name\":\"x\\udc00y\"")));
        c.add(Case.post("lone surrogate in key", ev, event("\"metadata\":{\"\\ud800\":1}")));
        c.add(Case.post("lone surrogate in agent_id", ev, "{\"agent_id\":\"a\\udbff\"}"));
        c.add(Case.postBytes("invalid UTF-8 in a string", ev, withBytes("{\"agent_id\":\"", new byte[] {(byte) 0xC3, 0x28}, "\"}")));
        c.add(Case.postBytes("overlong UTF-8", ev, withBytes("{\"agent_id\":\"", new byte[] {(byte) 0xC0, (byte) 0xAF}, "\"}")));
        c.add(Case.postBytes("raw 0xFF byte", ev, withBytes("{\"agent_id\":\"a\"", new byte[] {(byte) 0xFF}, "}")));
        c.add(Case.postBytes("UTF-8 encoded surrogate", ev, withBytes("{\"agent_id\":\"", new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, "\"}")));
        c.add(Case.postBytes("UTF-16 body", ev, "{\"agent_id\":\"a\"}".getBytes(StandardCharsets.UTF_16LE)));
        c.add(Case.postBytes("raw NUL", ev, withBytes("", new byte[] {0}, "{\"agent_id\":\"a\"}")));
        // Duplicate keys.
        c.add(Case.post("duplicate top-level key", ev, "{\"agent_id\":\"a\",\"agent_id\":\"b\"}"));
        c.add(Case.post("duplicate nested key", ev, event("\"metadata\":{\"k\":1,\"k\":1}")));
        c.add(Case.post("duplicate label key", ev, event("\"labels\":{\"env\":\"a\",\"env\":\"b\"}")));
        // Nesting.
        c.add(Case.post("nesting depth 1000", ev, event("\"metadata\":" + nest(1000))));
        c.add(Case.post("nesting depth 65", ev, event("\"metadata\":" + nest(65))));
        c.add(Case.post("array nesting depth 1000", ev, event("\"metadata\":{\"a\":" + "[".repeat(1000) + "]".repeat(1000) + "}")));
        // Sizes.
        c.add(Case.post("body over the limit", ev, event("\"error_message\":\"" + "x".repeat(MAX_BODY) + "\"")));
        c.add(Case.post("error_message over 64 KiB", ev, event("\"error_message\":\"" + "x".repeat(65537) + "\"")));
        c.add(Case.post("session_id over 1024", ev, event("\"session_id\":\"" + "s".repeat(1025) + "\"")));
        c.add(Case.post("action_type over 1024", ev, event("\"action_type\":\"" + "t".repeat(1025) + "\"")));
        // Unknown fields.
        c.add(Case.post("unknown field", ev, event("\"colour\":\"red\"")));
        c.add(Case.post("service field id", ev, event("\"id\":\"" + unknownV7 + "\"")));
        c.add(Case.post("service field hash", ev, event("\"hash\":\"" + "0".repeat(64) + "\"")));
        c.add(Case.post("service field sequence", ev, event("\"sequence\":1")));
        // agent_id rules.
        c.add(Case.post("empty agent_id", ev, "{\"agent_id\":\"\"}"));
        c.add(Case.post("over-long agent_id", ev, "{\"agent_id\":\"" + "a".repeat(257) + "\"}"));
        c.add(Case.post("agent_id with U+0001", ev, "{\"agent_id\":\"a\\u0001b\"}"));
        c.add(Case.post("agent_id with newline", ev, "{\"agent_id\":\"a\\nb\"}"));
        c.add(Case.post("agent_id with DEL", ev, "{\"agent_id\":\"a\\u007fb\"}"));
        c.add(Case.post("agent_id with C1 control", ev, "{\"agent_id\":\"a\\u0085b\"}"));
        // Labels.
        c.add(Case.post("label key with space", ev, event("\"labels\":{\"a b\":\"x\"}")));
        c.add(Case.post("empty label key", ev, event("\"labels\":{\"\":\"x\"}")));
        c.add(Case.post("label key over 128", ev, event("\"labels\":{\"" + "k".repeat(129) + "\":\"x\"}")));
        c.add(Case.post("label key with slash", ev, event("\"labels\":{\"a/b\":\"x\"}")));
        c.add(Case.post("label key non-ASCII", ev, event("\"labels\":{\"caf\\u00e9\":\"x\"}")));
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 65; i++) {
            many.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"v\"");
        }
        c.add(Case.post("65 labels", ev, event("\"labels\":{" + many + "}")));
        c.add(Case.post("label value over 1024", ev, event("\"labels\":{\"k\":\"" + "v".repeat(1025) + "\"}")));
        // Content types.
        c.add(new Case("text/plain", "POST", ev, "text/plain", event("").getBytes(StandardCharsets.UTF_8)));
        c.add(new Case("no content type", "POST", ev, null, event("").getBytes(StandardCharsets.UTF_8)));
        c.add(new Case("latin-1 charset", "POST", ev, "application/json; charset=iso-8859-1", event("").getBytes(StandardCharsets.UTF_8)));
        c.add(new Case("form content type", "POST", "/v1/batch", "application/x-www-form-urlencoded", "a=b".getBytes(StandardCharsets.UTF_8)));
        // Batches.
        String b = "/v1/batch";
        c.add(Case.post("batch is an object", b, "{\"agent_id\":\"a\"}"));
        c.add(Case.post("batch is a string", b, "\"[]\""));
        c.add(Case.post("batch is null", b, "null"));
        c.add(Case.post("empty batch", b, "[]"));
        c.add(Case.post("batch truncated", b, "[{\"agent_id\":\"a\"},"));
        c.add(Case.post("batch lone bracket", b, "["));
        c.add(Case.post("batch over the length limit", b, "[" + "{\"agent_id\":\"a\"},".repeat(MAX_BATCH) + "{\"agent_id\":\"a\"}]"));
        c.add(Case.post("batch with a duplicate key in one item", b, "[{\"agent_id\":\"a\"},{\"agent_id\":\"a\",\"x\":1,\"x\":2}]"));
        c.add(Case.post("batch with nesting 1000", b, "[{\"agent_id\":\"a\"},{\"agent_id\":\"a\",\"metadata\":" + nest(1000) + "}]"));
        c.add(Case.postBytes("batch with invalid UTF-8", b, withBytes("[{\"agent_id\":\"a\"},{\"agent_id\":\"", new byte[] {(byte) 0xFE}, "\"}]")));
        c.add(Case.post("batch with a lone surrogate", b, "[{\"agent_id\":\"a\"},{\"agent_id\":\"\\ud800\"}]"));
        c.add(Case.post("batch with a number RFC 8785 cannot hash", b, "[{\"agent_id\":\"a\",\"metadata\":{\"n\":12345678901234567890}}]"));
        c.add(Case.post("batch over the body limit", b, "[{\"agent_id\":\"a\",\"error_message\":\"" + "x".repeat(MAX_BODY) + "\"}]"));
        // GET /v1/events/{id}.
        c.add(Case.get("id not a UUID", ev + "/not-a-uuid"));
        c.add(Case.get("id upper case", ev + "/" + knownId.toUpperCase()));
        c.add(Case.get("id version 4", ev + "/3f1c2b4a-9d8e-4f7a-8b6c-5d4e3f2a1b0c"));
        c.add(Case.get("id unknown", ev + "/" + unknownV7));
        c.add(Case.get("id too long", ev + "/" + knownId + "0"));
        c.add(Case.get("id very long", ev + "/" + "a".repeat(5000)));
        c.add(Case.get("id with a dot segment", ev + "/.."));
        c.add(Case.get("id with percent-encoded slash", ev + "/abc%2Fdef"));
        // Verify.
        c.add(Case.get("verify without agent_id", "/v1/verify"));
        c.add(Case.get("verify with empty agent_id", "/v1/verify?agent_id="));
        c.add(Case.get("verify with agent_id twice", "/v1/verify?agent_id=fuzz-base&agent_id=x"));
        c.add(Case.get("verify unknown agent", "/v1/verify?agent_id=nobody-here"));
        // Merkle.
        c.add(Case.get("root tree_size not a number", "/v1/merkle/root?tree_size=abc"));
        c.add(Case.get("root tree_size negative", "/v1/merkle/root?tree_size=-1"));
        c.add(Case.get("root tree_size fraction", "/v1/merkle/root?tree_size=1.5"));
        c.add(Case.get("root tree_size beyond the tree", "/v1/merkle/root?tree_size=1000000"));
        c.add(Case.get("root tree_size overflows", "/v1/merkle/root?tree_size=99999999999999999999"));
        c.add(Case.get("root tree_size empty", "/v1/merkle/root?tree_size="));
        c.add(Case.get("root tree_size twice", "/v1/merkle/root?tree_size=1&tree_size=2"));
        c.add(Case.get("proof without event_id", "/v1/merkle/proof"));
        c.add(Case.get("proof with malformed event_id", "/v1/merkle/proof?event_id=xyz"));
        c.add(Case.get("proof with unknown event_id", "/v1/merkle/proof?event_id=" + unknownV7));
        c.add(Case.get("proof tree_size zero", "/v1/merkle/proof?event_id=" + knownId + "&tree_size=0"));
        c.add(Case.get("proof tree_size beyond the tree", "/v1/merkle/proof?event_id=" + knownId + "&tree_size=1000000"));
        c.add(Case.get("proof tree_size before the event", "/v1/merkle/proof?event_id=" + knownId + "&tree_size=1"));
        c.add(Case.get("consistency without from", "/v1/merkle/consistency"));
        c.add(Case.get("consistency from zero", "/v1/merkle/consistency?from=0"));
        c.add(Case.get("consistency from not a number", "/v1/merkle/consistency?from=abc"));
        c.add(Case.get("consistency from negative", "/v1/merkle/consistency?from=-5"));
        c.add(Case.get("consistency to beyond the tree", "/v1/merkle/consistency?from=1&to=1000000"));
        c.add(Case.get("consistency from after to", "/v1/merkle/consistency?from=4&to=2"));
        c.add(Case.get("consistency to zero", "/v1/merkle/consistency?from=1&to=0"));
        // Paths and methods.
        c.add(Case.get("unknown path", "/v1/nothing"));
        c.add(Case.get("batch with GET", "/v1/batch"));
        c.add(new Case("DELETE an event", "DELETE", ev + "/" + knownId, null, null));
        c.add(new Case("PUT a batch", "PUT", b, "application/json", "[]".getBytes(StandardCharsets.UTF_8)));
        c.add(new Case("POST agents", "POST", "/v1/agents", "application/json", "{}".getBytes(StandardCharsets.UTF_8)));
        c.add(new Case("POST stats", "POST", "/v1/stats", "application/json", "{}".getBytes(StandardCharsets.UTF_8)));
        c.add(new Case("PATCH root", "PATCH", "/v1/merkle/root", "application/json", "{}".getBytes(StandardCharsets.UTF_8)));
        return c;
    }

    /** A malformed request and the status the contract gives it. */
    record Expected(Case c, int status) {
    }

    /**
     * Export and timestamping (CONTRACT 4.2, 5, 6): each malformed request gets its exact status,
     * 400 bad input, 404 unknown resource, 405 wrong method (the 409 of an empty log is
     * {@link #timestampingAnEmptyLogIsAConflictThatChangesNothing}). No case reaches a TSA: every one
     * is refused before the request would be sent.
     */
    static List<Expected> exportAndTimestampCases() {
        List<Expected> c = new ArrayList<>();
        // An offset too large for a long is past the end, an empty page (#11), not malformed.
        for (String q : List.of("limit=0", "limit=-1", "limit=1.5", "limit=abc", "limit=", "offset=-1",
                "offset=abc", "offset=1.5")) {
            c.add(new Expected(Case.get("/v1/timestamps " + q, "/v1/timestamps?" + q), 400));
        }
        String ex = "/v1/export";
        c.add(new Expected(Case.get(ex + " without agent_id", ex), 400));
        c.add(new Expected(Case.get(ex + " with empty agent_id", ex + "?agent_id="), 400));
        c.add(new Expected(Case.get(ex + " unknown agent", ex + "?agent_id=nobody-here"), 404));
        c.add(new Expected(Case.get(ex + " bad since", ex + "?agent_id=fuzz-base&since=yesterday"), 400));
        c.add(new Expected(Case.get(ex + " bad until", ex + "?agent_id=fuzz-base&until=13:00"), 400));
        c.add(new Expected(Case.get(ex + " impossible date", ex + "?agent_id=fuzz-base&since=2026-02-30T00:00:00Z"), 400));
        c.add(new Expected(Case.get(ex + " since after until", ex
                + "?agent_id=fuzz-base&since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z"), 400));
        c.add(new Expected(new Case(ex + " with POST", "POST", ex + "?agent_id=fuzz-base", "application/json",
                "{}".getBytes(StandardCharsets.UTF_8)), 405));
        String ts = "/v1/timestamp";
        c.add(new Expected(Case.post(ts + " bad tsa_url", ts, "{\"tsa_url\":\"not a url\"}"), 400));
        c.add(new Expected(Case.post(ts + " ftp tsa_url", ts, "{\"tsa_url\":\"ftp://tsa.example/\"}"), 400));
        c.add(new Expected(Case.post(ts + " tsa_url with user info", ts, "{\"tsa_url\":\"http://u:p@tsa.example/\"}"), 400));
        c.add(new Expected(Case.post(ts + " empty tsa_url", ts, "{\"tsa_url\":\"\"}"), 400));
        c.add(new Expected(Case.post(ts + " tsa_url number", ts, "{\"tsa_url\":1}"), 400));
        c.add(new Expected(Case.post(ts + " tsa_url twice", ts,
                "{\"tsa_url\":\"ftp://a/\",\"tsa_url\":\"ftp://b/\"}"), 400));
        c.add(new Expected(Case.post(ts + " unknown field", ts, "{\"x\":1}"), 400));
        c.add(new Expected(Case.post(ts + " array", ts, "[]"), 400));
        c.add(new Expected(Case.post(ts + " truncated", ts, "{\"tsa_url\":"), 400));
        c.add(new Expected(Case.postBytes(ts + " invalid UTF-8", ts, withBytes("{\"tsa_url\":\"", new byte[] {(byte) 0xFE}, "\"}")), 400));
        c.add(new Expected(Case.get(ts + " with GET", ts), 405));
        c.add(new Expected(new Case("/v1/timestamps/verify with POST", "POST", "/v1/timestamps/verify", "application/json",
                "{}".getBytes(StandardCharsets.UTF_8)), 405));
        c.add(new Expected(Case.get("/v1/timestamps/verify before any timestamp", "/v1/timestamps/verify"), 404));
        c.add(new Expected(Case.get("/v1/timestamps/verify unknown id", "/v1/timestamps/verify?id=nothing-like-it"), 404));
        return c;
    }

    /** Bad parameters of the listing and of search: every one is a 400 (CONTRACT 4.1). */
    static List<Case> listAndSearchCases() {
        List<Case> c = new ArrayList<>();
        for (String p : List.of("/v1/events", "/v1/search?q=x")) {
            String sep = p.contains("?") ? "&" : "?";
            for (String q : List.of("limit=0", "limit=-1", "limit=1.5", "limit=abc", "limit=", "offset=-1",
                    "offset=abc", "offset=1.5")) {
                c.add(Case.get(p + " " + q, p + sep + q));
            }
        }
        for (String q : List.of("since=yesterday", "until=tomorrow", "since=2026-13-45T00:00:00Z", "until=",
                "order=sideways", "label.a%20b=x")) {
            c.add(Case.get("/v1/events " + q, "/v1/events?" + q));
        }
        for (String q : List.of("q=%28unclosed", "q=AND", "q=%22unterminated", "q=timestamp:%5Ba%20TO", "q=",
                "sort=sideways&q=x", "q=duration_ms:%5Babc%20TO%20def%5D")) {
            c.add(Case.get("/v1/search " + q, "/v1/search?" + q));
        }
        c.add(Case.get("/v1/search without q", "/v1/search"));
        return c;
    }

    static String rootState() throws Exception {
        JsonNode r = api.get("/v1/merkle/root").json();
        return r.get("tree_size").asLong() + "/" + r.get("root").asText();
    }

    static HttpResponse<String> assertRefusedAndNothingChanged(Case c) throws Exception {
        String before = rootState();
        HttpResponse<String> r = send(c);
        assertThat(r.statusCode()).as(c.name() + ": " + r.body()).isBetween(400, 499);
        JsonNode body = Api.JSON.readTree(r.body());
        assertThat(body.path("error").asText()).as(c.name()).isNotBlank();
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(rootState()).as(c.name() + " changed the tree").isEqualTo(before);
        return r;
    }

    /** {@link #assertRefusedAndNothingChanged}, with the exact status, and no timestamp stored either. */
    static void assertRefusedWith(Expected e) throws Exception {
        String before = timestampCount();
        HttpResponse<String> r = assertRefusedAndNothingChanged(e.c());
        assertThat(r.statusCode()).as(e.c().name() + ": " + r.body()).isEqualTo(e.status());
        assertThat(timestampCount()).as(e.c().name() + " stored a timestamp").isEqualTo(before);
    }

    static String timestampCount() throws Exception {
        return api.get("/v1/timestamps").header("X-Total-Count");
    }

    @Test
    void theTablesAreLargeAndDistinct() {
        List<Case> cases = existingEndpointCases();
        assertThat(cases).hasSizeGreaterThanOrEqualTo(60);
        assertThat(cases.stream().map(Case::name).distinct().count()).isEqualTo(cases.size());
        for (String endpoint : List.of("POST /v1/events", "POST /v1/batch", "GET /v1/events/", "GET /v1/verify",
                "GET /v1/merkle/root", "GET /v1/merkle/proof", "GET /v1/merkle/consistency")) {
            String[] mp = endpoint.split(" ");
            assertThat(cases).as(endpoint).anyMatch(c -> c.method().equals(mp[0]) && c.path().startsWith(mp[1]));
        }
    }

    @TestFactory
    Stream<DynamicTest> malformedRequestsToExistingEndpoints() {
        return existingEndpointCases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> assertRefusedAndNothingChanged(c)));
    }

    @TestFactory
    Stream<DynamicTest> malformedRequestsToExportAndTimestampingGetTheirExactStatus() {
        List<Expected> cases = exportAndTimestampCases();
        assertThat(cases.stream().map(e -> e.c().name()).distinct().count()).isEqualTo(cases.size());
        return cases.stream().map(e -> DynamicTest.dynamicTest(e.c().name() + " -> " + e.status(), () -> assertRefusedWith(e)));
    }

    @Test
    void timestampingAnEmptyLogIsAConflictThatChangesNothing() throws Exception {
        try (InProcessServer empty = InProcessServer.start(dir.resolve("empty"))) {
            Api e = empty.api();
            for (String body : List.of("{}", "")) {
                Api.Reply r = e.post("/v1/timestamp", body);
                assertThat(r.status()).as(r.body()).isEqualTo(409);
                assertThat(r.json().path("error").asText()).contains("log is empty");
            }
            assertThat(e.get("/v1/timestamps").header("X-Total-Count")).isEqualTo("0");
            assertThat(e.get("/v1/timestamps/verify").status()).isEqualTo(404);
            Api.Reply export = e.get("/v1/export?agent_id=anyone");
            assertThat(export.status()).isEqualTo(404);
            assertThat(export.json().path("error").asText()).isNotBlank();
            assertThat(e.get("/v1/merkle/root").json().get("tree_size").asLong()).isZero();
        }
    }

    /** CONTRACT 4.1: a {@code limit} above 1000 is 1000, also one larger than any number a long can hold. */
    @Test
    void aLimitBeyondAnyNumberIsTheMaximum() throws Exception {
        for (String huge : List.of("1001", "9223372036854775808", "99999999999999999999",
                "123456789012345678901234567890")) {
            for (String path : List.of("/v1/events?limit=", "/v1/search?q=*:*&limit=", "/v1/timestamps?limit=")) {
                Api.Reply r = api.get(path + huge);
                assertThat(r.status()).as(path + huge + ": " + r.body()).isEqualTo(200);
            }
            Api.Reply search = api.get("/v1/search?q=*:*&limit=" + huge);
            assertThat(search.json().get("limit").asInt()).as(huge).isEqualTo(1000);
        }
        Api.Reply negative = api.get("/v1/events?limit=-99999999999999999999");
        assertThat(negative.status()).as(negative.body()).isEqualTo(400);
    }

    @TestFactory
    Stream<DynamicTest> malformedListAndSearchRequestsAreA400() {
        List<Case> cases = listAndSearchCases();
        assertThat(cases.stream().map(Case::name).distinct().count()).isEqualTo(cases.size());
        return cases.stream().map(c -> DynamicTest.dynamicTest(c.name() + " -> 400",
                () -> assertRefusedWith(new Expected(c, 400))));
    }

    @Test
    void seededMutatorNeverBreaksTheService() throws Exception {
        long sizeBefore = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        Mutator mutator = new Mutator(new Random(SEED));
        List<Case> bodies = new ArrayList<>(MUTATED_BODIES);
        for (int i = 0; i < MUTATED_BODIES; i++) {
            boolean batch = i % 2 == 1;
            bodies.add(Case.postBytes("mutant " + i, batch ? "/v1/batch" : "/v1/events",
                    batch ? mutator.batch() : mutator.event()));
        }
        // A client of its own: the table tests' connections are not shared with these threads.
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        ConcurrentLinkedQueue<JsonNode> accepted = new ConcurrentLinkedQueue<>();
        Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (Case c : bodies) {
                done.add(pool.submit(() -> {
                    HttpResponse<String> r = send(client, c);
                    statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
                    String text = new String(c.body(), StandardCharsets.UTF_8);
                    String shown = c.name() + " " + text.substring(0, Math.min(300, text.length())) + " -> "
                            + r.statusCode() + " " + r.body();
                    assertThat(r.statusCode()).as(shown).isLessThan(500);
                    JsonNode body = Api.JSON.readTree(r.body());
                    if (r.statusCode() >= 400) {
                        assertThat(body.path("error").asText()).as(shown).isNotBlank();
                    } else if (c.path().equals("/v1/events")) {
                        assertThat(r.statusCode()).as(shown).isEqualTo(201);
                        accepted.add(body);
                    } else {
                        assertThat(r.statusCode()).as(shown).isIn(201, 207);
                        for (JsonNode item : body) {
                            if (item.has("event")) {
                                accepted.add(item.get("event"));
                            } else {
                                assertThat(r.statusCode()).as(shown).isEqualTo(207);
                                assertThat(item.path("error").asText()).as(shown).isNotBlank();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            // Everything accepted is there, byte for byte, with a hash anyone can recompute.
            Map<String, Integer> perAgent = new HashMap<>();
            List<Future<?>> checks = new ArrayList<>();
            for (JsonNode event : accepted) {
                perAgent.merge(event.get("agent_id").asText(), 1, Integer::sum);
                checks.add(pool.submit(() -> {
                    HttpResponse<String> got = send(client, Case.get("lookup", "/v1/events/" + event.get("id").asText()));
                    assertThat(got.statusCode()).isEqualTo(200);
                    assertThat(Api.JSON.readTree(got.body())).isEqualTo(event);
                    assertThat(LedgerEndpointsIT.recomputeHash(event)).isEqualTo(event.get("hash").asText());
                    return null;
                }));
            }
            for (Future<?> f : checks) {
                f.get();
            }
            for (String agent : perAgent.keySet()) {
                JsonNode v = api.get("/v1/verify?agent_id=" + URLEncoder.encode(agent, StandardCharsets.UTF_8)).json();
                assertThat(v.get("valid").asBoolean()).as(agent + ": " + v).isTrue();
                assertThat(v.get("events_verified").asLong()).as(agent).isGreaterThanOrEqualTo(perAgent.get(agent));
            }
        } finally {
            pool.shutdownNow();
        }
        long sizeAfter = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        assertThat(sizeAfter).as("every accepted event, and nothing else, was added").isEqualTo(sizeBefore + accepted.size());
        JsonNode c = api.get("/v1/merkle/consistency?from=" + sizeBefore).json();
        assertThat(io.trailproof.core.merkle.MerkleProofs.verifyConsistency(sizeBefore, sizeAfter,
                HexFormat.of().parseHex(c.get("from_root").asText()), HexFormat.of().parseHex(c.get("to_root").asText()),
                hexList(c.get("proof")))).isTrue();
        // The mutator must exercise both outcomes to mean anything.
        assertThat(accepted.size()).isGreaterThan(MUTATED_BODIES / 10);
        assertThat(statuses.getOrDefault(400, new AtomicInteger()).get()).isGreaterThan(MUTATED_BODIES / 10);
        System.out.println("FuzzIT mutator: " + MUTATED_BODIES + " bodies, statuses " + statuses + ", " + accepted.size()
                + " events accepted");
    }

    private static List<byte[]> hexList(JsonNode array) {
        List<byte[]> out = new ArrayList<>();
        array.forEach(n -> out.add(HexFormat.of().parseHex(n.asText())));
        return out;
    }

    /** Seeded mutations of valid events: structural (a field gets a random value) and byte-level. */
    static final class Mutator {
        private static final String[] FIELDS = {"agent_id", "session_id", "source", "capture_method", "action_type",
                "action_name", "action_status", "error_message", "action_input", "action_output", "metadata",
                "timestamp", "duration_ms", "labels", "colour", "id", "hash"};
        private static final String[] TOKENS = {"{", "}", "[", "]", "\"", ":", ",", "\\", "null", "true", "1e400",
                "9007199254740993", "12345678901234567890", "-0", "0.1", "\"\\ud800\"", "\\u0000", "\"agent_id\":\"x\",",
                "\"agent_id\":1,", "{\"a\":{\"a\":{\"a\":1}}}", " ", "\n"};
        private static final byte[] BYTES = {0, 0x1f, 0x7f, (byte) 0x80, (byte) 0xbf, (byte) 0xc0, (byte) 0xc3,
                (byte) 0xed, (byte) 0xf4, (byte) 0xff, '{', '}', '"', ','};
        private final Random random;

        Mutator(Random random) {
            this.random = random;
        }

        byte[] event() {
            return random.nextInt(3) == 0 ? bytes(validEventText()) : Api.JSON.valueToTree(structural()).toString()
                    .getBytes(StandardCharsets.UTF_8);
        }

        byte[] batch() {
            int n = 1 + random.nextInt(4);
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < n; i++) {
                sb.append(i == 0 ? "" : ",").append(random.nextInt(4) == 0 ? validEventText() : structural().toString());
            }
            String text = sb.append("]").toString();
            return random.nextInt(4) == 0 ? bytes(text) : text.getBytes(StandardCharsets.UTF_8);
        }

        private String validEventText() {
            return base().toString();
        }

        private ObjectNode base() {
            ObjectNode e = Api.JSON.createObjectNode();
            e.put("agent_id", "mut-" + random.nextInt(12));
            if (random.nextBoolean()) {
                e.put("action_type", "TOOL_CALL");
            }
            if (random.nextBoolean()) {
                e.putObject("action_input").put("q", "revenue " + random.nextInt(100)).put("n", random.nextInt(1000) / 8.0);
            }
            if (random.nextBoolean()) {
                e.putObject("labels").put("env", "prod");
            }
            if (random.nextBoolean()) {
                e.put("duration_ms", random.nextInt(100_000));
            }
            return e;
        }

        private ObjectNode structural() {
            ObjectNode e = base();
            int edits = 1 + random.nextInt(3);
            for (int i = 0; i < edits; i++) {
                String field = FIELDS[random.nextInt(FIELDS.length)];
                if (random.nextInt(6) == 0) {
                    e.remove(field);
                } else {
                    e.set(field, value(0));
                }
            }
            return e;
        }

        private JsonNode value(int depth) {
            return switch (random.nextInt(depth > 3 ? 7 : 9)) {
                case 0 -> Api.JSON.getNodeFactory().textNode(string());
                case 1 -> Api.JSON.getNodeFactory().numberNode(random.nextInt(2001) - 1000);
                case 2 -> Api.JSON.getNodeFactory().numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
                case 3 -> Api.JSON.getNodeFactory().booleanNode(random.nextBoolean());
                case 4 -> Api.JSON.getNodeFactory().nullNode();
                case 5 -> Api.JSON.getNodeFactory().textNode("2026-0" + (1 + random.nextInt(9)) + "-1" + random.nextInt(10)
                        + "T10:00:00" + (random.nextBoolean() ? "Z" : "+01:00"));
                case 6 -> Api.JSON.getNodeFactory().numberNode(random.nextLong());
                case 7 -> {
                    ObjectNode o = Api.JSON.createObjectNode();
                    int n = random.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        o.set(random.nextBoolean() ? "k" + i : string(), value(depth + 1));
                    }
                    yield o;
                }
                default -> {
                    var a = Api.JSON.createArrayNode();
                    int n = random.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        a.add(value(depth + 1));
                    }
                    yield a;
                }
            };
        }

        private String string() {
            int kind = random.nextInt(8);
            int len = switch (kind) {
                case 0 -> 0;
                case 1 -> 257 + random.nextInt(2000);
                default -> 1 + random.nextInt(20);
            };
            StringBuilder sb = new StringBuilder(len);
            for (int i = 0; i < len; i++) {
                int r = random.nextInt(20);
                sb.append(switch (r) {
                    case 0 -> (char) random.nextInt(0x20);
                    case 1 -> (char) (0x7f + random.nextInt(0x21));
                    case 2 -> (char) (0xd800 + random.nextInt(0x800));
                    case 3 -> (char) (0x100 + random.nextInt(0xd000));
                    case 4 -> '"';
                    case 5 -> '\\';
                    default -> (char) ('a' + random.nextInt(26));
                });
            }
            return sb.toString();
        }

        private byte[] bytes(String text) {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int edits = 1 + random.nextInt(4);
            for (int e = 0; e < edits; e++) {
                out.reset();
                int at = b.length == 0 ? 0 : random.nextInt(b.length + 1);
                switch (random.nextInt(6)) {
                    case 0 -> { // truncate
                        out.write(b, 0, at);
                    }
                    case 1 -> { // delete a byte
                        out.write(b, 0, at);
                        if (at < b.length) {
                            out.write(b, at + 1, b.length - at - 1);
                        }
                    }
                    case 2 -> { // flip a byte
                        out.writeBytes(b);
                        if (at < b.length) {
                            byte[] c = out.toByteArray();
                            c[at] ^= (byte) (1 << random.nextInt(8));
                            out.reset();
                            out.writeBytes(c);
                        }
                    }
                    case 3 -> { // insert a special byte
                        out.write(b, 0, at);
                        out.write(BYTES[random.nextInt(BYTES.length)]);
                        out.write(b, at, b.length - at);
                    }
                    case 4 -> { // insert a token
                        out.write(b, 0, at);
                        out.writeBytes(TOKENS[random.nextInt(TOKENS.length)].getBytes(StandardCharsets.UTF_8));
                        out.write(b, at, b.length - at);
                    }
                    default -> { // duplicate a slice
                        int from = b.length == 0 ? 0 : random.nextInt(b.length);
                        int len = b.length == 0 ? 0 : random.nextInt(Math.min(40, b.length - from) + 1);
                        out.write(b, 0, at);
                        out.write(b, from, len);
                        out.write(b, at, b.length - at);
                    }
                }
                b = out.toByteArray();
            }
            return b;
        }
    }
}
