package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.ByteSearch;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gateway end to end: the official OpenAI and Anthropic SDKs for Node call a fake model API
 * ({@link FakeModelApi}) through {@code llm-gateway}, which records into a real trailproof server (with API keys
 * and redaction on); the recorded events are read back from the server field by field.
 */
class LlmGatewayIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String INGEST_KEY = "tp-gateway-ingest-9f8e7d6c";
    private static final String READ_KEY = "tp-reader-1a2b3c4d";
    /** The callers' own credentials: they must reach the upstream and never be stored. */
    private static final String OPENAI_SECRET = "oai!caller!secret!7Hq2";
    private static final String ANTHROPIC_SECRET = "ant!caller!secret!5Rt8";
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    static Path tmp;

    private static InProcessServer trail;
    private static FakeModelApi upstream;
    private static LlmGateway gateway;
    private static final ByteArrayOutputStream NOTICES = new ByteArrayOutputStream();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeAll
    static void start() throws Exception {
        NodeClients.install();
        trail = InProcessServer.start(tmp.resolve("data"), "auth.api-keys", INGEST_KEY + ":ingest," + READ_KEY + ":read",
                "redaction.enabled", "true");
        upstream = new FakeModelApi();
        gateway = LlmGateway.start(options(URI.create(trail.api().base()), tmp.resolve("spool")),
                new PrintStream(NOTICES, true, StandardCharsets.UTF_8), Clock.systemUTC(), () -> UUID.randomUUID().toString());
    }

    private static LlmGateway.Options options(URI server, Path spool) {
        return new LlmGateway.Options(URI.create(upstream.base()), new InetSocketAddress("127.0.0.1", 0), server,
                INGEST_KEY, "default-agent", spool, true, Duration.ofMillis(100), Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        if (trail != null) {
            trail.close();
        }
    }

    private static String gatewayUrl(LlmGateway g) {
        return "http://127.0.0.1:" + g.port();
    }

    private static JsonNode events(Api api, String agent) throws Exception {
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/events?order=asc&limit=1000&agent_id=" + agent))
                .header("Authorization", "Bearer " + READ_KEY)).json();
    }

    private static JsonNode awaitEvents(Api api, String agent, int count) throws Exception {
        try {
            Await.untilTrue(count + " events of " + agent, Duration.ofSeconds(90), () -> events(api, agent).size() >= count);
        } catch (AssertionError timedOut) {
            // the assertion below says what arrived
        }
        JsonNode events = events(api, agent);
        assertThat(events.size()).as("events of %s: %s\nnotices: %s", agent, events, NOTICES).isEqualTo(count);
        return events;
    }

    /** The fields every gateway event has, and the pairing of a call with its result. */
    private static void assertPair(JsonNode call, JsonNode result, String agent, String session, String api) {
        for (JsonNode e : List.of(call, result)) {
            assertThat(e.get("agent_id").asText()).isEqualTo(agent);
            assertThat(e.get("session_id").asText()).isEqualTo(session);
            assertThat(e.get("source").asText()).isEqualTo("llm-gateway");
            assertThat(e.get("capture_method").asText()).isEqualTo("llm-gateway");
            assertThat(e.get("metadata").get("api").asText()).isEqualTo(api);
        }
        assertThat(call.get("action_type").asText()).isEqualTo("LLM_CALL");
        assertThat(result.get("action_type").asText()).isEqualTo("LLM_RESULT");
        assertThat(result.get("duration_ms").asLong()).isBetween(0L, 120_000L);
    }

    private static JsonNode json(String text) throws IOException {
        return JSON.readTree(text);
    }

    @Test
    void theOpenAiSdkGetsEveryAnswerThroughTheGatewayAndEachCallIsRecordedFieldByField() throws Exception {
        Api api = trail.api();
        JsonNode sdk = json(NodeClients.run("openai-client.mjs", gatewayUrl(gateway), "openai-agent", "s-openai"));

        // What the SDK got is what the upstream sent.
        assertThat(sdk.at("/chatPlain/content").asText()).isEqualTo("Hello there.");
        assertThat(sdk.at("/chatPlain/usage/total_tokens").asInt()).isEqualTo(15);
        assertThat(sdk.at("/chatStream/calls")).isEqualTo(json(
                "[{\"id\":\"call_abc\",\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}]"));
        assertThat(sdk.at("/chatStream/finish").asText()).isEqualTo("tool_calls");
        assertThat(sdk.at("/chatStream/usage/completion_tokens").asInt()).isEqualTo(9);
        assertThat(sdk.at("/responsesPlain/text").asText()).isEqualTo("Hello from Responses.");
        assertThat(sdk.at("/responsesStream/types")).hasSize(5);
        assertThat(sdk.at("/responsesStream/output/0/call_id").asText()).isEqualTo("call_xyz");
        assertThat(sdk.at("/error400/status").asInt()).isEqualTo(400);
        assertThat(sdk.at("/error400/message").asText()).isEqualTo("Invalid value for 'temperature'.");
        assertThat(sdk.at("/error500/status").asInt()).isEqualTo(500);
        assertThat(sdk.at("/dropped/status").asInt()).isEqualTo(502);
        assertThat(sdk.at("/dropped/message").asText()).startsWith("trailproof llm-gateway: the upstream")
                .contains("closed the connection before answering");
        assertThat(sdk.at("/models")).isEqualTo(json("[\"fake-plain\"]"));

        // Each call went upstream once, with the caller's key and without the gateway's headers.
        List<FakeModelApi.Received> calls = upstream.received.stream()
                .filter(r -> OPENAI_SECRET.equals(bearer(r))).toList();
        assertThat(calls).hasSize(8); // 7 calls and the model list, none retried
        for (FakeModelApi.Received r : calls) {
            assertThat(r.headers()).doesNotContainKeys("x-trailproof-agent", "x-trailproof-session");
            assertThat(r.headers().toString()).doesNotContain(INGEST_KEY);
        }

        JsonNode events = awaitEvents(api, "openai-agent", 14);
        assertCaptureStream(events);
        for (int i = 0; i < 14; i += 2) {
            assertPair(events.get(i), events.get(i + 1), "openai-agent", "s-openai",
                    i < 4 || i >= 8 ? "openai.chat.completions" : "openai.responses");
        }
        // A plain chat call: the request as sent (redaction applied by the service), the answer assembled.
        JsonNode call = events.get(0);
        assertThat(call.get("action_name").asText()).isEqualTo("fake-plain");
        assertThat(call.get("action_input")).isEqualTo(json("""
                {"model":"fake-plain","messages":[{"role":"system","content":"Be brief."},
                {"role":"user","content":"Say hello to [REDACTED:email]"}],"tools":[],
                "parameters":{"temperature":0.5}}"""));
        assertThat(call.get("redactions")).isEqualTo(json("{\"email\":1}"));
        assertThat(call.get("metadata").get("stream").asBoolean()).isFalse();
        JsonNode result = events.get(1);
        assertThat(result.get("action_name").asText()).isEqualTo("fake-plain-2026-01-01");
        assertThat(result.get("action_status").asText()).isEqualTo("success");
        assertThat(result.get("action_output")).isEqualTo(json("""
                {"model":"fake-plain-2026-01-01","content":"Hello there.","tool_calls":[],"finish_reason":"stop",
                "usage":{"input_tokens":12,"output_tokens":3}}"""));
        assertThat(result.get("metadata").get("http_status").asInt()).isEqualTo(200);
        assertThat(result.get("metadata").get("upstream_request_id").asText()).isEqualTo("req_fake_200");

        // A streamed chat call with a tool call in pieces.
        assertThat(events.get(2).get("action_input").get("tools").get(0).get("function").get("name").asText())
                .isEqualTo("get_weather");
        assertThat(events.get(2).get("action_input").get("parameters")).isEqualTo(json(
                "{\"stream\":true,\"stream_options\":{\"include_usage\":true}}"));
        assertThat(events.get(2).get("metadata").get("stream").asBoolean()).isTrue();
        assertThat(events.get(3).get("action_output")).isEqualTo(json("""
                {"model":"fake-tools-2026-01-01","content":null,
                "tool_calls":[{"id":"call_abc","name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}],
                "finish_reason":"tool_calls","usage":{"input_tokens":40,"output_tokens":9}}"""));

        // Responses, whole and streamed.
        assertThat(events.get(4).get("action_input")).isEqualTo(json("""
                {"model":"fake-plain","input":"Say hello","tools":[],"parameters":{"instructions":"Be brief."}}"""));
        assertThat(events.get(5).get("action_output")).isEqualTo(json("""
                {"model":"fake-plain-2026-01-01","content":"Hello from Responses.","tool_calls":[],
                "finish_reason":"completed","usage":{"input_tokens":20,"output_tokens":5}}"""));
        assertThat(events.get(7).get("action_output")).isEqualTo(json("""
                {"model":"fake-tools-2026-01-01","content":null,
                "tool_calls":[{"id":"call_xyz","name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}],
                "finish_reason":"completed","usage":{"input_tokens":33,"output_tokens":11}}"""));

        // Upstream errors passed through and recorded as errors; a dropped connection as the 502 it became.
        JsonNode e400 = events.get(9);
        assertThat(e400.get("action_status").asText()).isEqualTo("error");
        assertThat(e400.get("error_message").asText()).isEqualTo("Invalid value for 'temperature'.");
        assertThat(e400.get("metadata").get("http_status").asInt()).isEqualTo(400);
        assertThat(e400.get("action_output").get("error").get("param").asText()).isEqualTo("temperature");
        assertThat(events.get(11).get("metadata").get("http_status").asInt()).isEqualTo(500);
        assertThat(events.get(11).get("action_status").asText()).isEqualTo("error");
        JsonNode dropped = events.get(13);
        assertThat(dropped.get("action_status").asText()).isEqualTo("error");
        assertThat(dropped.get("metadata").get("http_status").asInt()).isEqualTo(502);
        assertThat(dropped.get("error_message").asText()).contains("closed the connection before answering");

        assertNoSecretStored();
    }

    @Test
    void theAnthropicSdkGetsEveryAnswerThroughTheGatewayAndEachCallIsRecordedFieldByField() throws Exception {
        Api api = trail.api();
        JsonNode sdk = json(NodeClients.run("anthropic-client.mjs", gatewayUrl(gateway), "claude-agent", "s-claude"));
        assertThat(sdk.at("/plain/content/0/text").asText()).isEqualTo("Hello from Claude.");
        assertThat(sdk.at("/stream/text").asText()).isEqualTo("Let me check.");
        assertThat(sdk.at("/stream/content/1/input")).isEqualTo(json("{\"city\":\"Lima\"}"));
        assertThat(sdk.at("/stream/stop").asText()).isEqualTo("tool_use");
        assertThat(sdk.at("/overloaded/status").asInt()).isEqualTo(529);
        assertThat(sdk.at("/overloaded/type").asText()).isEqualTo("overloaded_error");
        assertThat(sdk.at("/dropped/status").asInt()).isEqualTo(502);
        assertThat(sdk.at("/dropped/type").asText()).isEqualTo("api_error");

        List<FakeModelApi.Received> calls = upstream.received.stream()
                .filter(r -> ANTHROPIC_SECRET.equals(bearer(r)) || ANTHROPIC_SECRET.equals(r.header("x-api-key"))).toList();
        assertThat(calls).hasSize(4);

        JsonNode events = awaitEvents(api, "claude-agent", 8);
        assertCaptureStream(events);
        for (int i = 0; i < 8; i += 2) {
            assertPair(events.get(i), events.get(i + 1), "claude-agent", "s-claude", "anthropic.messages");
        }
        assertThat(events.get(0).get("action_input")).isEqualTo(json("""
                {"model":"fake-plain","messages":[{"role":"user","content":"Say hello"}],"system":"Be brief.",
                "tools":[],"parameters":{"max_tokens":100}}"""));
        assertThat(events.get(1).get("action_output")).isEqualTo(json("""
                {"model":"fake-plain-2026-01-01","content":"Hello from Claude.","tool_calls":[],
                "finish_reason":"end_turn","usage":{"input_tokens":25,"output_tokens":6}}"""));
        assertThat(events.get(2).get("action_input").get("parameters").get("stream").asBoolean()).isTrue();
        assertThat(events.get(3).get("action_output")).isEqualTo(json("""
                {"model":"fake-tools-2026-01-01","content":"Let me check.",
                "tool_calls":[{"id":"toolu_01","name":"get_weather","arguments":{"city":"Lima"}}],
                "finish_reason":"tool_use","usage":{"input_tokens":50,"output_tokens":21}}"""));
        JsonNode overloaded = events.get(5);
        assertThat(overloaded.get("action_status").asText()).isEqualTo("error");
        assertThat(overloaded.get("error_message").asText()).isEqualTo("Overloaded");
        assertThat(overloaded.get("metadata").get("http_status").asInt()).isEqualTo(529);
        assertThat(events.get(7).get("metadata").get("http_status").asInt()).isEqualTo(502);

        assertNoSecretStored();
    }

    @Test
    void answersPassThroughByteForByteAndStreamsArriveChunkByChunk() throws Exception {
        String body = "{\"model\":\"fake-plain\",\"messages\":[{\"role\":\"user\",\"content\":\"h\\u00e9llo \u2603\"}]}";
        HttpResponse<byte[]> direct = post(upstream.base(), "/v1/chat/completions?api-version=1", body, Map.of());
        HttpResponse<byte[]> through = post(gatewayUrl(gateway), "/v1/chat/completions?api-version=1", body,
                Map.of("X-Trailproof-Agent", "raw-agent", "Authorization", "Bearer raw-caller-key",
                        "x-api-key", "raw-anthropic-key"));
        assertThat(through.statusCode()).isEqualTo(direct.statusCode());
        assertThat(through.body()).isEqualTo(direct.body());
        assertThat(endToEndHeaders(through)).isEqualTo(endToEndHeaders(direct));
        FakeModelApi.Received last = upstream.received.get(upstream.received.size() - 1);
        assertThat(last.target()).isEqualTo("/v1/chat/completions?api-version=1");
        assertThat(last.body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
        assertThat(last.header("authorization")).isEqualTo("Bearer raw-caller-key");
        assertThat(last.header("x-api-key")).isEqualTo("raw-anthropic-key");
        assertThat(last.headers()).doesNotContainKeys("x-trailproof-agent", "x-trailproof-session");

        // The second piece is sent only after the client got the first one through the gateway.
        CountDownLatch gate = upstream.gate("fake-gated");
        HttpResponse<InputStream> streamed = HTTP.send(request(gatewayUrl(gateway), "/v1/chat/completions",
                "{\"model\":\"fake-gated\",\"stream\":true,\"messages\":[]}", Map.of("X-Trailproof-Agent", "raw-agent")),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(streamed.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        List<String> pieces = FakeAnswers.chatTextStream();
        try (InputStream in = streamed.body()) {
            byte[] first = in.readNBytes(pieces.get(0).getBytes(StandardCharsets.UTF_8).length);
            assertThat(new String(first, StandardCharsets.UTF_8)).isEqualTo(pieces.get(0));
            gate.countDown();
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(pieces.get(1) + pieces.get(2));
        }

        // A gzip answer reaches the client as sent and is recorded decoded.
        HttpResponse<byte[]> zipped = post(gatewayUrl(gateway), "/v1/chat/completions",
                "{\"model\":\"fake-gzip\",\"messages\":[]}", Map.of("X-Trailproof-Agent", "raw-agent",
                        "Accept-Encoding", "br, gzip"));
        assertThat(zipped.headers().firstValue("content-encoding")).hasValue("gzip");
        assertThat(upstream.received.get(upstream.received.size() - 1).header("accept-encoding")).isEqualTo("gzip");

        JsonNode events = awaitEvents(trail.api(), "raw-agent", 6);
        assertCaptureStream(events);
        assertThat(events.get(1).get("action_output").get("content").asText()).isEqualTo("Hello there.");
        assertThat(events.get(3).get("action_output").get("content").asText()).isEqualTo("Hello!");
        assertThat(events.get(3).get("action_output").get("finish_reason").asText()).isEqualTo("stop");
        assertThat(events.get(5).get("action_output").get("content").asText()).isEqualTo("Hello there.");
    }

    @Test
    void anAnswerTheUpstreamBreaksOffIsBrokenOffForTheClientAndRecordedAsAnError() throws Exception {
        HttpResponse<InputStream> cut = HTTP.send(request(gatewayUrl(gateway), "/v1/chat/completions",
                "{\"model\":\"fake-cut\",\"stream\":true,\"messages\":[]}", Map.of("X-Trailproof-Agent", "cut-agent")),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(cut.statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> {
            try (InputStream in = cut.body()) {
                in.readAllBytes();
            }
        }).isInstanceOf(IOException.class);
        JsonNode events = awaitEvents(trail.api(), "cut-agent", 2);
        JsonNode result = events.get(1);
        assertThat(result.get("action_status").asText()).isEqualTo("error");
        assertThat(result.get("error_message").asText()).startsWith("the upstream connection broke after");
        assertThat(result.get("metadata").get("http_status").asInt()).isEqualTo(200);
        assertThat(result.get("action_output").get("content").asText()).isEqualTo("Hello");
        assertThat(result.get("session_id")).isNull();
    }

    @Test
    void badGatewayHeadersAreRefusedInTheApisErrorShapeAndNothingIsSent() throws Exception {
        int before = upstream.received.size();
        HttpResponse<byte[]> bad = post(gatewayUrl(gateway), "/v1/messages", "{\"model\":\"fake-plain\"}",
                Map.of("X-Trailproof-Agent", "x".repeat(300)));
        assertThat(bad.statusCode()).isEqualTo(400);
        JsonNode body = JSON.readTree(bad.body());
        assertThat(body.get("type").asText()).isEqualTo("error");
        assertThat(body.get("error").get("message").asText()).contains("X-Trailproof-Agent");
        assertThat(upstream.received).hasSize(before);
    }

    /**
     * The gateway as users run it (the launcher), with trailproof down: calls go on, events are spooled;
     * SIGTERM ends the capture stream with a CAPTURE_END and exit 0; the next run delivers everything.
     */
    @Test
    void whenTrailproofIsDownCallsGoOnAndTheNextRunDeliversTheSpooledEvents() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String server = "http://127.0.0.1:" + port;
        Path spoolRoot = tmp.resolve("spool-down");
        Path spool = spoolRoot.resolve("http_127.0.0.1_" + port); // one subdirectory per service URL
        ProcessBuilder pb = ServerProcess.onTestJdk(new ProcessBuilder(ServerProcess.launcher().toString(), "llm-gateway",
                "--upstream", upstream.base(), "--listen", "127.0.0.1:0", "--server", server, "--api-key", INGEST_KEY,
                "--agent-id", "spooled-agent"));
        pb.environment().put("TRAILPROOF_SPOOL_DIR", spoolRoot.toString());
        pb.redirectErrorStream(true);
        Process launched = pb.start();
        List<String> lines = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(launched.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    lines.add(line);
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        listening.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException ended) {
                // the process ended
            }
            listening.complete(-1);
        });
        reader.setDaemon(true);
        reader.start();
        try {
            int gatewayPort = listening.get(120, TimeUnit.SECONDS);
            assertThat(gatewayPort).as("%s", lines).isPositive();
            for (int i = 0; i < 3; i++) {
                HttpResponse<byte[]> r = post("http://127.0.0.1:" + gatewayPort, "/v1/chat/completions",
                        "{\"model\":\"fake-plain\",\"messages\":[]}", Map.of());
                assertThat(r.statusCode()).isEqualTo(200);
            }
            Await.untilTrue("events spooled", Duration.ofSeconds(60), () -> spooledEvents(spool) == 6);
            Await.until("the notice", Duration.ofSeconds(30),
                    () -> lines.stream().anyMatch(l -> l.contains("calls to the model go on")));
        } finally {
            launched.destroy(); // SIGTERM
            assertThat(launched.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(launched.exitValue()).as("%s", lines).isZero();
        assertThat(spooledEvents(spool)).isEqualTo(7);

        try (InProcessServer late = InProcessServer.start(tmp.resolve("data-late"), "server.port", Integer.toString(port),
                "auth.api-keys", INGEST_KEY + ":ingest," + READ_KEY + ":read")) {
            LlmGateway next = LlmGateway.start(options(URI.create(server), spool), new PrintStream(new ByteArrayOutputStream()),
                    Clock.systemUTC(), () -> UUID.randomUUID().toString());
            try {
                JsonNode events = awaitEvents(late.api(), "spooled-agent", 7);
                assertCaptureStream(events);
                JsonNode end = events.get(6);
                assertThat(end.get("action_type").asText()).isEqualTo("CAPTURE_END");
                assertThat(end.get("capture_last").asBoolean()).isTrue();
                Await.untilTrue("spool emptied", Duration.ofSeconds(60), () -> spooledEvents(spool) == 0);
            } finally {
                next.close();
            }
        }
    }

    /** One capture stream, numbered 1, 2, 3, ... without a hole. */
    private static void assertCaptureStream(JsonNode events) {
        String id = events.get(0).get("capture_id").asText();
        assertThat(id).isNotEmpty();
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).get("capture_id").asText()).isEqualTo(id);
            assertThat(events.get(i).get("capture_seq").asLong()).isEqualTo(i + 1);
        }
    }

    private static long spooledEvents(Path spool) throws IOException {
        if (!Files.isDirectory(spool)) {
            return 0;
        }
        long n = 0;
        try (Stream<Path> files = Files.list(spool)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".json")).toList()) {
                try {
                    n += JSON.readTree(f.toFile()).get("events").size();
                } catch (IOException goneWhileReading) {
                    // sent and deleted meanwhile
                }
            }
        }
        return n;
    }

    /** Neither caller's credential is anywhere in the server's data directory. */
    private static void assertNoSecretStored() throws IOException {
        for (String secret : List.of(OPENAI_SECRET, ANTHROPIC_SECRET, "raw-caller-key", "raw-anthropic-key")) {
            assertThat(ByteSearch.filesContaining(tmp.resolve("data"), secret)).as(secret).isEmpty();
        }
    }

    private static String bearer(FakeModelApi.Received r) {
        String auth = r.header("authorization");
        return auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
    }

    private static HttpRequest request(String base, String path, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        headers.forEach(b::header);
        return b.build();
    }

    private static HttpResponse<byte[]> post(String base, String path, String body, Map<String, String> headers)
            throws IOException, InterruptedException {
        return HTTP.send(request(base, path, body, headers), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The answer's headers less the hop-by-hop ones and the date. */
    private static Map<String, List<String>> endToEndHeaders(HttpResponse<?> r) {
        Map<String, List<String>> out = new TreeMap<>();
        r.headers().map().forEach((name, values) -> {
            if (!List.of("connection", "keep-alive", "transfer-encoding", "date").contains(name.toLowerCase())) {
                out.put(name.toLowerCase(), new ArrayList<>(values));
            }
        });
        return out;
    }
}
