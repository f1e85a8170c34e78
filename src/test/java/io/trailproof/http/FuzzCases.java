package io.trailproof.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * FuzzIT's tables of malformed requests, each refused without a change: one per way a request to
 * each endpoint can be wrong. The server they run against has {@link #MAX_BODY} and
 * {@link #MAX_BATCH} as its limits.
 */
final class FuzzCases {

    static final int MAX_BODY = 256 * 1024;
    static final int MAX_BATCH = 100;

    private FuzzCases() {
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

    static List<Case> existingEndpointCases(String knownId) {
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
     * Export and timestamping (src/site/http-api.md#endpoints, src/site/evidence-format.md, src/site/timestamps.md): each malformed request gets its exact status,
     * 400 bad input, 404 unknown resource, 405 wrong method (the 409 of an empty log is
     * {@link #timestampingAnEmptyLogIsAConflictThatChangesNothing}). No case reaches a TSA: every one
     * is refused before the request would be sent.
     */
    static List<Expected> exportAndTimestampCases() {
        List<Expected> c = new ArrayList<>();
        // An offset too large for a long is past the end, an empty page, not malformed.
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

    /** Bad parameters of the listing and of search: every one is a 400 (src/site/http-api.md#conventions). */
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
        // Queries that would hurt the service (src/site/search.md#bounds): refused before the work starts.
        String deep = "%28".repeat(4_000) + "a" + "%29".repeat(4_000);
        c.add(Case.get("/v1/search nested 4000 deep", "/v1/search?q=" + deep));
        c.add(Case.get("/v1/search nested 4000 deep, unclosed", "/v1/search?q=" + "%28".repeat(4_000) + "a"));
        c.add(Case.get("/v1/search NDJSON nested 4000 deep", "/v1/search?format=ndjson&q=" + deep));
        c.add(Case.get("/v1/stream nested 4000 deep", "/v1/stream?q=" + deep));
        c.add(Case.get("/v1/search regexp repeated 32000 times", "/v1/search?q=%2F.%7B0%2C32000%7D%2F"));
        c.add(Case.get("/v1/search regexp groups nested 400 deep",
                "/v1/search?q=%2F" + "%28".repeat(400) + "a" + "%29".repeat(400) + "%2F"));
        c.add(Case.get("/v1/search regexp of 2000 characters", "/v1/search?q=%2F" + "a".repeat(2_000) + "%2F"));
        return c;
    }
}
