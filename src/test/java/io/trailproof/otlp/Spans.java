package io.trailproof.otlp;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;

import java.util.Arrays;
import java.util.List;

/** Builds OTLP requests for tests: GenAI-shaped spans of one service. */
public final class Spans {

    public static final long T0 = 1_764_086_400_000_000_000L;   // 2025-11-25T16:00:00Z

    private Spans() {
    }

    public static KeyValue kv(String k, String v) {
        return KeyValue.newBuilder().setKey(k).setValue(AnyValue.newBuilder().setStringValue(v)).build();
    }

    /** A span of agent {@code agent}; trace {@code trace} and span {@code span} are small numbers made into ids. */
    public static Span.Builder span(String agent, int trace, int span, long startOffsetMillis, String operation) {
        long start = T0 + startOffsetMillis * 1_000_000L;
        return Span.newBuilder()
                .setTraceId(ByteString.copyFrom(id(16, trace)))
                .setSpanId(ByteString.copyFrom(id(8, span)))
                .setName(operation + " " + agent)
                .setKind(Span.SpanKind.SPAN_KIND_INTERNAL)
                .setStartTimeUnixNano(start).setEndTimeUnixNano(start + 2_000_000L)
                .addAttributes(kv("gen_ai.agent.id", agent))
                .addAttributes(kv("gen_ai.operation.name", operation));
    }

    public static byte[] id(int bytes, int n) {
        byte[] b = new byte[bytes];
        b[0] = 0x42;   // never all zeros
        for (int i = 0; i < 4; i++) {
            b[bytes - 1 - i] = (byte) (n >>> (8 * i));
        }
        return b;
    }

    public static ExportTraceServiceRequest request(List<Span> spans) {
        return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .setResource(Resource.newBuilder().addAttributes(kv("service.name", "support-bot")))
                .addScopeSpans(ScopeSpans.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("test").setVersion("1"))
                        .addAllSpans(spans))).build();
    }

    public static ExportTraceServiceRequest request(Span.Builder... spans) {
        return request(Arrays.stream(spans).map(Span.Builder::build).toList());
    }
}
