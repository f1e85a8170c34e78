package io.trailproof.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.exporter.internal.otlp.traces.TraceRequestMarshaler;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.trailproof.testing.InProcessServer;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with the real OpenTelemetry Java SDK: GenAI-shaped spans (invoke_agent, chat,
 * execute_tool) exported to the running server, then read back, searched and verified.
 *
 * <p>Protobuf goes through the SDK's own {@link OtlpHttpSpanExporter}, as an agent would send it
 * (plain and gzip). The SDK (1.68.0) has no public OTLP/JSON trace exporter: its builder offers
 * no JSON option. JSON is therefore produced by the SDK's own OTLP/JSON serializer, the one its
 * JSON exporters use ({@link TraceRequestMarshaler#writeJsonTo}, an internal class), and posted
 * as an exporter would; the hand-built OTLP/JSON requests of {@link TraceEndpointIT} and
 * {@link TraceMalformedIT} cover the rest.
 */
class OtlpSdkIT {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String KEY = "otlp-sdk-secret-ingest-read";

    @TempDir
    Path dir;

    /** Keeps what the SDK ended, to export it again by hand. */
    static final class Collected implements SpanExporter {
        final List<SpanData> spans = new ArrayList<>();

        @Override
        public synchronized CompletableResultCode export(Collection<SpanData> batch) {
            spans.addAll(batch);
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
        }
    }

    /** One agent run: invoke_agent, a chat inside it, a tool call inside that (failing when {@code fail}). */
    static void agentRun(Tracer tracer, String agent, String conversation, boolean fail) {
        Span root = tracer.spanBuilder("invoke_agent " + agent).setSpanKind(SpanKind.CLIENT)
                .setAttribute("gen_ai.operation.name", "invoke_agent")
                .setAttribute("gen_ai.agent.id", agent)
                .setAttribute("gen_ai.agent.name", "Weather helper")
                .setAttribute("gen_ai.conversation.id", conversation)
                .startSpan();
        try (Scope r = root.makeCurrent()) {
            Span chat = tracer.spanBuilder("chat gpt-4o").setSpanKind(SpanKind.CLIENT)
                    .setAttribute("gen_ai.operation.name", "chat")
                    .setAttribute("gen_ai.agent.id", agent)
                    .setAttribute("gen_ai.conversation.id", conversation)
                    .setAttribute("gen_ai.request.model", "gpt-4o")
                    .setAttribute("gen_ai.usage.input_tokens", 412L)
                    .setAttribute("gen_ai.input.messages", "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Weather in Paris?\"}]}]")
                    .setAttribute("gen_ai.output.messages", "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"name\":\"get_weather\"}]}]")
                    .startSpan();
            chat.addEvent("gen_ai.choice", Attributes.of(AttributeKey.longKey("index"), 0L));
            try (Scope c = chat.makeCurrent()) {
                Span tool = tracer.spanBuilder("execute_tool get_weather").setSpanKind(SpanKind.INTERNAL)
                        .setAttribute("gen_ai.operation.name", "execute_tool")
                        .setAttribute("gen_ai.agent.id", agent)
                        .setAttribute("gen_ai.conversation.id", conversation)
                        .setAttribute("gen_ai.tool.name", "get_weather")
                        .setAttribute("gen_ai.tool.call.id", "call_mszuSIzqtI65i1wAUOE8w5H4")
                        .setAttribute("gen_ai.tool.call.arguments", "{\"location\":\"Paris\"}")
                        .startSpan();
                if (fail) {
                    tool.setStatus(StatusCode.ERROR, "weather service unavailable");
                    tool.setAttribute("error.type", "ServiceUnavailable");
                } else {
                    tool.setAttribute("gen_ai.tool.call.result", "{\"temperature_c\":21}");
                }
                tool.end();
            } finally {
                chat.end();
            }
        } finally {
            root.end();
        }
    }

    static SdkTracerProvider provider(SpanExporter exporter) {
        return SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(
                        AttributeKey.stringKey("service.name"), "weather-agent",
                        AttributeKey.stringKey("deployment.environment.name"), "test"))))
                .addSpanProcessor(BatchSpanProcessor.builder(exporter).build())   // as agents do: one export per flush
                .build();
    }

    static JsonNode get(int port, String path) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).header("Authorization", "Bearer " + KEY).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }

    static String q(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void theSdkExportsOverProtobufAndJsonAndTheTrailIsSearchableChainedAndVerifiable() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), "auth.api-keys", KEY + ":ingest+read")) {
            int port = s.server().port();
            String endpoint = "http://127.0.0.1:" + port + "/v1/traces";
            OtlpHttpSpanExporter plain = OtlpHttpSpanExporter.builder().setEndpoint(endpoint)
                    .addHeader("Authorization", "Bearer " + KEY).build();
            OtlpHttpSpanExporter gzip = OtlpHttpSpanExporter.builder().setEndpoint(endpoint)
                    .addHeader("Authorization", "Bearer " + KEY).setCompression("gzip").build();
            Collected collected = new Collected();

            SdkTracerProvider viaProtobuf = provider(SpanExporter.composite(plain, collected));
            agentRun(viaProtobuf.get("agent-sdk"), "weather-pb", "conv-pb", false);
            agentRun(viaProtobuf.get("agent-sdk"), "weather-pb", "conv-pb-2", true);
            assertThat(viaProtobuf.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(s.server().ledger().size()).isEqualTo(6);

            // A retried export (the exporter's own, gzip-compressed) stores nothing twice.
            assertThat(gzip.export(collected.spans).join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
            assertThat(s.server().ledger().size()).isEqualTo(6);

            // OTLP/JSON as the SDK serialises it.
            Collected forJson = new Collected();
            SdkTracerProvider viaJson = provider(forJson);
            agentRun(viaJson.get("agent-sdk"), "weather-json", "conv-json", false);
            viaJson.forceFlush().join(30, TimeUnit.SECONDS);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            TraceRequestMarshaler.create(forJson.spans).writeJsonTo(body);
            OtlpClient.Answer json = new OtlpClient(port, KEY).json(body.toString(StandardCharsets.UTF_8));
            assertThat(json.status()).as(json.text()).isEqualTo(200);
            assertThat(JSON.readTree(json.body()).has("partialSuccess")).as(json.text()).isFalse();
            assertThat(s.server().ledger().size()).isEqualTo(9);

            for (String agent : List.of("weather-pb", "weather-json")) {
                JsonNode v = get(port, "/v1/verify?agent_id=" + agent);
                assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
            }
            JsonNode pb = get(port, "/v1/events?agent_id=weather-pb&order=asc");
            assertThat(pb).hasSize(6);
            // Chained in start-time order: invoke_agent, chat, execute_tool of each run.
            assertThat(pb.findValuesAsText("action_type")).containsExactly(
                    "AGENT_CALL", "LLM_CALL", "TOOL_CALL", "AGENT_CALL", "LLM_CALL", "TOOL_CALL");
            for (int i = 0; i < 6; i++) {
                assertThat(pb.get(i).get("sequence").asInt()).isEqualTo(i + 1);
            }
            JsonNode tool = pb.get(5);
            assertThat(tool.get("action_name").asText()).isEqualTo("get_weather");
            assertThat(tool.get("action_status").asText()).isEqualTo("error");
            assertThat(tool.get("error_message").asText()).isEqualTo("weather service unavailable");
            assertThat(tool.at("/action_input/arguments/location").asText()).isEqualTo("Paris");
            assertThat(tool.get("session_id").asText()).isEqualTo("conv-pb-2");
            assertThat(tool.at("/labels/service").asText()).isEqualTo("weather-agent");
            assertThat(tool.at("/labels/env").asText()).isEqualTo("test");
            assertThat(tool.at("/metadata/otel/parent_span_id").asText()).isEqualTo(pb.get(4).at("/metadata/otel/span_id").asText());
            assertThat(tool.at("/metadata/otel/scope/name").asText()).isEqualTo("agent-sdk");
            assertThat(tool.at("/metadata/otel/attributes/error.type").asText()).isEqualTo("ServiceUnavailable");
            assertThat(pb.get(1).at("/metadata/otel/events/0/name").asText()).isEqualTo("gen_ai.choice");
            assertThat(pb.get(1).at("/metadata/otel/attributes/gen_ai.usage.input_tokens").asLong()).isEqualTo(412);

            JsonNode jsonTool = get(port, "/v1/events?agent_id=weather-json&action_type=TOOL_CALL").get(0);
            assertThat(jsonTool.at("/action_output/result/temperature_c").asInt()).isEqualTo(21);
            assertThat(jsonTool.at("/metadata/otel/trace_id").asText()).hasSize(32).isEqualTo(
                    forJson.spans.get(0).getTraceId());

            JsonNode found = get(port, "/v1/search?q=" + q("action_name:get_weather AND action_status:error"));
            assertThat(found.get("total").asInt()).isEqualTo(1);
            assertThat(found.at("/results/0/agent_id").asText()).isEqualTo("weather-pb");
            assertThat(get(port, "/v1/search?q=" + q("Paris")).get("total").asInt()).isGreaterThanOrEqualTo(3);
            assertThat(get(port, "/v1/search?q=" + q("metadata:call_mszuSIzqtI65i1wAUOE8w5H4")).get("total").asInt()).isEqualTo(3);
            assertThat(get(port, "/v1/events?label.service=weather-agent&limit=1000")).hasSize(9);

            viaProtobuf.shutdown().join(10, TimeUnit.SECONDS);
            viaJson.shutdown().join(10, TimeUnit.SECONDS);
            gzip.shutdown().join(10, TimeUnit.SECONDS);
        }
    }
}
