package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.otlp.Spans;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * src/site/storage.md#readers-see-one-readable-size and src/site/http-api.md#conventions on an
 * otherwise <em>idle</em> server: an event is in the next listing and search the moment its write is
 * acknowledged, although nothing is written after it. Tests that keep writing hide a reader that
 * only sees an event once a later one arrives.
 *
 * <p>Every write kind (one event, a batch, a batch with {@code Idempotency-Key}, an OTLP/JSON span,
 * a gzipped OTLP protobuf span) at every size (an {@code action_input} string of 100, 3,500, 5,000
 * and 9,000 characters: frames below, around and above the readers' 2 and 4 KB first reads) is
 * written for an agent of its own, and listed and searched at once (a keyed batch is also retried:
 * the replay reads the stored events back), before the next case writes:
 * so when a case is checked, its write is the last one the server received. One server for all
 * cases keeps this quick; nothing else writes to the event log.
 */
class IdleReadAfterWriteIT {

    private static final int[] SIZES = {100, 3_500, 5_000, 9_000};
    private static final String[] KINDS = {"event", "batch", "keyed-batch", "otlp-json", "otlp-gzip"};
    /** The server waits up to 30 s for the index before a 503; an event that is not readable at once fails sooner. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final HttpClient reads = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void everyWriteKindAndSizeIsListedAndFoundAtOnceWithNothingWrittenAfterIt() throws Exception {
        List<String> failures = new ArrayList<>();
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            Api api = server.api();
            int n = 0;
            for (String kind : KINDS) {
                for (int size : SIZES) {
                    n++;
                    String agent = "idle-" + kind + "-" + size;
                    String token = "tok" + n + "idle" + size;
                    String hash = write(api, kind, agent, input(token, size), n);
                    String what = kind + " of " + size + " characters";
                    // listing: the one event of this agent, found by the agent's id in the search index
                    Answer listed = get(api, "/v1/events?agent_id=" + agent);
                    if (listed.status != 200 || !"1".equals(listed.totalCount)
                            || !Api.JSON.readTree(listed.body).path(0).path("hash").asText().equals(hash)) {
                        failures.add(what + ": listing answered " + listed);
                    }
                    // search: the token in its action_input
                    Answer found = get(api, "/v1/search?q=" + token);
                    if (found.status != 200 || Api.JSON.readTree(found.body).path("total").asLong() != 1) {
                        failures.add(what + ": search answered " + found);
                    }
                    if (kind.equals("keyed-batch")) {
                        // the retry is answered from the log (the stored events read back), storing nothing
                        Reply again = write(api, kind, agent, input(token, size), n, false);
                        if (again.status() != 201 || !"true".equals(again.header("Idempotent-Replayed"))
                                || !again.json().path(0).path("event").path("hash").asText().equals(hash)) {
                            failures.add(what + ": the retry answered " + again.status() + " " + again.body());
                        }
                    }
                }
            }
        }
        assertThat(failures).as("write kinds and sizes not readable at once on an idle server").isEmpty();
    }

    /** A string of {@code size} characters: the token, then words (so the token is a term of its own). */
    private static String input(String token, int size) {
        StringBuilder b = new StringBuilder(size).append(token);
        while (b.length() < size) {
            b.append(" filler");
        }
        b.setLength(size);
        return b.toString();
    }

    /**
     * Writes one event of {@code kind} carrying {@code text} in its action_input; returns its hash.
     * {@code n} makes the case's Idempotency-Key and span id its own (a repeated span is deduplicated).
     */
    private static String write(Api api, String kind, String agent, String text, int n) throws Exception {
        Reply r = write(api, kind, agent, text, n, true);
        return switch (kind) {
            case "event" -> r.json().get("hash").asText();
            case "batch", "keyed-batch" -> r.json().get(0).get("event").get("hash").asText();
            default -> hashOfOnlyEvent(api, agent);   // OTLP answers do not name the stored event
        };
    }

    private static Reply write(Api api, String kind, String agent, String text, int n, boolean first) throws Exception {
        String event = "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_input\":{\"arguments\":"
                + Api.JSON.writeValueAsString(text) + "}}";
        Reply r = switch (kind) {
            case "event" -> api.post("/v1/events", event);
            case "batch" -> api.post("/v1/batch", "[" + event + "]");
            case "keyed-batch" -> api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/batch"))
                    .header("Content-Type", "application/json").header("Idempotency-Key", "key-" + n)
                    .POST(HttpRequest.BodyPublishers.ofString("[" + event + "]")));
            case "otlp-json" -> api.post("/v1/traces", otlpJson(agent, text, n).getBytes(StandardCharsets.UTF_8),
                    "application/json");
            case "otlp-gzip" -> api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/traces"))
                    .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(gzip(Spans.request(
                            Spans.span(agent, n, n, 0, "execute_tool").addAttributes(
                                    Spans.kv("gen_ai.tool.call.arguments", text))).toByteArray()))));
            default -> throw new IllegalArgumentException(kind);
        };
        if (first) {
            assertThat(r.status()).as("%s for %s: %s", kind, agent, r.body()).isIn(200, 201);
        }
        return r;
    }

    /** The hash of the agent's one event, from its chain (verify reads the log, not the search index). */
    private static String hashOfOnlyEvent(Api api, String agent) throws Exception {
        JsonNode verify = api.get("/v1/verify?agent_id=" + agent).json();
        assertThat(verify.path("events_verified").asInt()).as("span of %s stored: %s", agent, verify).isEqualTo(1);
        return verify.path("head_hash").asText();
    }

    private static String otlpJson(String agent, String text, int n) throws IOException {
        return """
                {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},
                 "scopeSpans":[{"scope":{"name":"s"},"spans":[
                  {"traceId":"%s","spanId":"%s","name":"execute_tool",
                   "startTimeUnixNano":"1764086400005000000","endTimeUnixNano":"1764086400007000000",
                   "attributes":[{"key":"gen_ai.agent.id","value":{"stringValue":"%s"}},
                                 {"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},
                                 {"key":"gen_ai.tool.call.arguments","value":{"stringValue":%s}}]}]}]}]}
                """.formatted(HexFormat.of().formatHex(Spans.id(16, n)), HexFormat.of().formatHex(Spans.id(8, n)), agent,
                        Api.JSON.writeValueAsString(text));
    }

    private static byte[] gzip(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(body);
        }
        return out.toByteArray();
    }

    private record Answer(int status, String totalCount, String body) {
        @Override
        public String toString() {
            return status + " " + body.substring(0, Math.min(300, body.length()));
        }
    }

    /** A GET that gives up after {@link #READ_TIMEOUT}: a listing waiting for an index that never catches up. */
    private Answer get(Api api, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(api.base() + path)).timeout(READ_TIMEOUT).GET().build();
        try {
            HttpResponse<String> r = reads.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.headers().firstValue("X-Total-Count").orElse(null), r.body());
        } catch (HttpTimeoutException e) {
            return new Answer(0, null, "no answer within " + READ_TIMEOUT.toSeconds() + " s");
        }
    }
}
