package io.trailproof.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class OtlpCodecTest {

    static final String TRACE = "5b8efff798038103d269b633813fc60c";
    static final String SPAN = "eee19b7ec3c1b174";

    @Test
    void protobufRoundTrips() throws Exception {
        ExportTraceServiceRequest r = request();
        assertThat(OtlpCodec.decode(r.toByteArray(), OtlpEncoding.PROTOBUF)).isEqualTo(r);
    }

    @Test
    void jsonReadsHexIdsCamelCaseAndInt64Strings() throws Exception {
        String json = """
                {"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"%s","spanId":"%s","parentSpanId":"",
                 "name":"chat","kind":3,"startTimeUnixNano":"1700000000000000001","endTimeUnixNano":"1700000000500000000",
                 "attributes":[{"key":"n","value":{"intValue":"9007199254740993"}}],
                 "links":[{"traceId":"%s","spanId":"%s"}],"someFutureField":1}]}]}]}
                """.formatted(TRACE.toUpperCase(), SPAN, TRACE, SPAN);
        Span s = OtlpCodec.decode(json.getBytes(StandardCharsets.UTF_8), OtlpEncoding.JSON)
                .getResourceSpans(0).getScopeSpans(0).getSpans(0);
        assertThat(HexFormat.of().formatHex(s.getTraceId().toByteArray())).isEqualTo(TRACE);
        assertThat(HexFormat.of().formatHex(s.getSpanId().toByteArray())).isEqualTo(SPAN);
        assertThat(s.getParentSpanId().isEmpty()).isTrue();
        assertThat(s.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_CLIENT);
        assertThat(s.getStartTimeUnixNano()).isEqualTo(1700000000000000001L);
        assertThat(s.getAttributes(0).getValue().getIntValue()).isEqualTo(9007199254740993L);
        assertThat(HexFormat.of().formatHex(s.getLinks(0).getSpanId().toByteArray())).isEqualTo(SPAN);
    }

    @Test
    void jsonAcceptsOriginalFieldNames() throws Exception {
        String json = """
                {"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"%s","span_id":"%s","name":"x"}]}]}]}
                """.formatted(TRACE, SPAN);
        Span s = OtlpCodec.decode(json.getBytes(StandardCharsets.UTF_8), OtlpEncoding.JSON)
                .getResourceSpans(0).getScopeSpans(0).getSpans(0);
        assertThat(HexFormat.of().formatHex(s.getSpanId().toByteArray())).isEqualTo(SPAN);
    }

    @Test
    void undecodableBodiesSayWhy() {
        byte[] truncated = Arrays.copyOf(request().toByteArray(), request().toByteArray().length - 3);
        assertThatThrownBy(() -> OtlpCodec.decode(truncated, OtlpEncoding.PROTOBUF))
                .isInstanceOf(UndecodableBody.class).hasMessageContaining("protobuf");
        assertThatThrownBy(() -> decodeJson("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"zz\"}]}]}]}"))
                .isInstanceOf(UndecodableBody.class)
                .hasMessageContaining("resourceSpans[0].scopeSpans[0].spans[0].traceId is not hex");
        assertThatThrownBy(() -> decodeJson("{\"resourceSpans\": 5}")).isInstanceOf(UndecodableBody.class);
        assertThatThrownBy(() -> decodeJson("[]")).isInstanceOf(UndecodableBody.class);
        assertThatThrownBy(() -> decodeJson("{\"a\":1,\"a\":2}")).isInstanceOf(UndecodableBody.class);
        assertThatThrownBy(() -> decodeJson("{")).isInstanceOf(UndecodableBody.class);
        assertThatThrownBy(() -> decodeJson("")).isInstanceOf(UndecodableBody.class);
    }

    @Test
    void anEmptyProtobufBodyIsAnEmptyExport() throws Exception {
        assertThat(TraceIngest.spanCount(OtlpCodec.decode(new byte[0], OtlpEncoding.PROTOBUF))).isZero();
    }

    @Test
    void responsesInBothEncodings() throws Exception {
        assertThat(new String(OtlpCodec.response(OtlpEncoding.JSON, 0, null), StandardCharsets.UTF_8)).isEqualTo("{}");
        assertThat(new String(OtlpCodec.response(OtlpEncoding.JSON, 2, "why"), StandardCharsets.UTF_8))
                .isEqualTo("{\"partialSuccess\":{\"rejectedSpans\":\"2\",\"errorMessage\":\"why\"}}");
        ExportTraceServiceResponse r = ExportTraceServiceResponse.parseFrom(OtlpCodec.response(OtlpEncoding.PROTOBUF, 2, "why"));
        assertThat(r.getPartialSuccess().getRejectedSpans()).isEqualTo(2);
        assertThat(r.getPartialSuccess().getErrorMessage()).isEqualTo("why");
        assertThat(OtlpCodec.response(OtlpEncoding.PROTOBUF, 0, null)).isEmpty();
    }

    @Test
    void statusInBothEncodings() throws Exception {
        assertThat(new String(OtlpCodec.status(OtlpEncoding.JSON, 3, "bad \"x\""), StandardCharsets.UTF_8))
                .isEqualTo("{\"code\":3,\"message\":\"bad \\\"x\\\"\"}");
        CodedInputStream in = CodedInputStream.newInstance(OtlpCodec.status(OtlpEncoding.PROTOBUF, 3, "bad"));
        assertThat(in.readTag()).isEqualTo(1 << 3);
        assertThat(in.readInt32()).isEqualTo(3);
        assertThat(in.readTag()).isEqualTo(2 << 3 | 2);
        assertThat(in.readString()).isEqualTo("bad");
        assertThat(in.isAtEnd()).isTrue();
    }

    @Test
    void contentTypes() {
        assertThat(OtlpEncoding.ofContentType("application/x-protobuf")).isEqualTo(OtlpEncoding.PROTOBUF);
        assertThat(OtlpEncoding.ofContentType("Application/JSON; charset=utf-8")).isEqualTo(OtlpEncoding.JSON);
        assertThat(OtlpEncoding.ofContentType("application/json; charset=latin1")).isNull();
        assertThat(OtlpEncoding.ofContentType("text/plain")).isNull();
        assertThat(OtlpEncoding.ofContentType(null)).isNull();
    }

    @Test
    void gzipInflatesWithinTheLimit() throws Exception {
        byte[] body = request().toByteArray();
        assertThat(BoundedGunzip.inflate(gzip(body), body.length)).isEqualTo(body);
        assertThatThrownBy(() -> BoundedGunzip.inflate(gzip(body), body.length - 1)).isInstanceOf(BoundedGunzip.TooLarge.class);
        assertThatThrownBy(() -> BoundedGunzip.inflate(new byte[] {1, 2, 3}, 100)).isInstanceOf(UndecodableBody.class);
        byte[] cut = gzip(body);
        assertThatThrownBy(() -> BoundedGunzip.inflate(Arrays.copyOf(cut, cut.length - 4), 1000))
                .isInstanceOf(UndecodableBody.class);
    }

    @Test
    void aGzipBombStopsAtTheLimit() throws Exception {
        // 1 GiB of zeros compresses to about 1 MB; the inflater must stop at the limit, long before.
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            byte[] zeros = new byte[1 << 20];
            for (int i = 0; i < 1024; i++) {
                out.write(zeros);
            }
        }
        assertThatThrownBy(() -> BoundedGunzip.inflate(gz.toByteArray(), 16L << 20))
                .isInstanceOf(BoundedGunzip.TooLarge.class).hasMessageContaining("decompresses to more than");
    }

    static byte[] gzip(byte[] b) throws Exception {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(b);
        }
        return gz.toByteArray();
    }

    private static ExportTraceServiceRequest decodeJson(String json) throws UndecodableBody {
        return OtlpCodec.decode(json.getBytes(StandardCharsets.UTF_8), OtlpEncoding.JSON);
    }

    private static ExportTraceServiceRequest request() {
        Span span = Span.newBuilder().setTraceId(ByteString.fromHex(TRACE)).setSpanId(ByteString.fromHex(SPAN))
                .setName("chat").setStartTimeUnixNano(1).setEndTimeUnixNano(2)
                .addAttributes(KeyValue.newBuilder().setKey("k").setValue(AnyValue.newBuilder().setStringValue("v")))
                .build();
        return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(span))).build();
    }
}
