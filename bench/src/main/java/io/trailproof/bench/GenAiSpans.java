package io.trailproof.bench;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * The OTLP benchmark's load: GenAI-shaped spans of about 1 KB (invoke_agent, chat and
 * execute_tool in turn, with gen_ai.* attributes), and for comparison the JSON event that the
 * service stores for each, sent through {@code POST /v1/batch}: both paths store the same events.
 */
final class GenAiSpans {

    private static final String[] OPERATIONS = {"invoke_agent", "chat", "execute_tool"};
    private static final String[] TYPES = {"AGENT_CALL", "LLM_CALL", "TOOL_CALL"};
    private static final long T0 = 1_764_086_400_000_000_000L;
    private static final String ARGUMENTS = "{\"location\":\"Paris\",\"unit\":\"celsius\",\"days\":3,"
            + "\"fields\":[\"temperature\",\"precipitation\",\"wind_speed\",\"humidity\"],\"lang\":\"en\"}";
    private static final String RESULT = "{\"forecast\":[{\"day\":1,\"temperature_c\":21,\"precipitation_mm\":0.4,"
            + "\"wind_kmh\":12},{\"day\":2,\"temperature_c\":19,\"precipitation_mm\":3.1,\"wind_kmh\":20},"
            + "{\"day\":3,\"temperature_c\":17,\"precipitation_mm\":7.8,\"wind_kmh\":26}],\"source\":\"met-service\"}";

    private GenAiSpans() {
    }

    /** An export of spans {@code [first, first + n)}: one resource, one scope. */
    static byte[] export(long first, int n) {
        ScopeSpans.Builder scope = ScopeSpans.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName("opentelemetry.instrumentation.openai").setVersion("2.1.0"));
        for (int i = 0; i < n; i++) {
            scope.addSpans(span(first + i));
        }
        return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .setResource(Resource.newBuilder().addAttributes(kv("service.name", "weather-agent"))
                        .addAttributes(kv("deployment.environment.name", "prod")))
                .addScopeSpans(scope)).build().toByteArray();
    }

    static Span span(long i) {
        int op = (int) (i % 3);
        long start = T0 + i * 1_000_000L;
        Span.Builder s = Span.newBuilder()
                .setTraceId(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(0x5b8efff798038103L).putLong(i / 3 + 1).array()))
                .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(i + 1).array()))
                .setName(OPERATIONS[op] + " get_weather").setKind(Span.SpanKind.SPAN_KIND_CLIENT)
                .setStartTimeUnixNano(start).setEndTimeUnixNano(start + 734_000_000L)
                .addAttributes(kv("gen_ai.operation.name", OPERATIONS[op]))
                .addAttributes(kv("gen_ai.agent.id", agent(i)))
                .addAttributes(kv("gen_ai.conversation.id", "conv-" + (i / 3)))
                .addAttributes(kv("gen_ai.request.model", "gpt-4o"))
                .addAttributes(KeyValue.newBuilder().setKey("gen_ai.usage.input_tokens")
                        .setValue(AnyValue.newBuilder().setIntValue(400 + i % 100)))
                .addAttributes(kv("gen_ai.tool.name", "get_weather"))
                .addAttributes(kv("gen_ai.tool.call.arguments", ARGUMENTS))
                .addAttributes(kv("gen_ai.tool.call.result", RESULT));
        return s.build();
    }

    /**
     * The event that {@link #span} becomes, as a {@code POST /v1/batch} item (the JSON batch
     * baseline stores the same event; only the envelope differs).
     */
    static String event(long i) {
        int op = (int) (i % 3);
        String trace = String.format("5b8efff798038103%016x", i / 3 + 1);
        return "{\"agent_id\":\"" + agent(i) + "\",\"session_id\":\"conv-" + (i / 3) + "\",\"source\":\"otlp\","
                + "\"capture_method\":\"otlp\",\"action_type\":\"" + TYPES[op] + "\",\"action_name\":\"get_weather\","
                + "\"action_status\":\"success\",\"timestamp\":\"" + Instant.ofEpochSecond(0, T0 + i * 1_000_000L)
                + "\",\"duration_ms\":734,\"action_input\":{\"arguments\":" + ARGUMENTS + "},"
                + "\"action_output\":{\"result\":" + RESULT + "},\"labels\":{\"service\":\"weather-agent\",\"env\":\"prod\"},"
                + "\"metadata\":{\"otel\":{\"trace_id\":\"" + trace + "\",\"span_id\":\"" + String.format("%016x", i + 1)
                + "\",\"kind\":\"SPAN_KIND_CLIENT\",\"scope\":{\"name\":\"opentelemetry.instrumentation.openai\",\"version\":\"2.1.0\"},"
                + "\"attributes\":{\"gen_ai.request.model\":\"gpt-4o\",\"gen_ai.usage.input_tokens\":" + (400 + i % 100) + "},"
                + "\"resource\":{\"service.name\":\"weather-agent\",\"deployment.environment.name\":\"prod\"},\"events\":[]}}}";
    }

    static String batch(long first, int n) {
        StringBuilder b = new StringBuilder(n * 1400).append('[');
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append(event(first + i));
        }
        return b.append(']').toString();
    }

    private static String agent(long i) {
        return "agent-" + (i / 3 % 100);
    }

    private static KeyValue kv(String k, String v) {
        return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setStringValue(v)).build();
    }
}
