package io.trailproof.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.trailproof.core.event.EventValidator;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The mapping table of src/site/ingestion.md#otlp, one parameterized test per row: each case is a span (and
 * resource) built from a base span, and the JSON the row's field must hold ({@code null}: absent).
 */
class SpanMappingTest {

    static final String TRACE = "5b8efff798038103d269b633813fc60c";
    static final String SPAN = "eee19b7ec3c1b174";
    static final String PARENT = "aaaabbbbccccdddd";
    static final long START = 1_764_086_400_123_456_789L;   // 2025-11-25T16:00:00.123456789Z
    static final ObjectMapper JSON = new ObjectMapper();

    /** A case: how the span and resource differ from the base, and the expected value (JSON text, or null for absent). */
    record Case(String name, UnaryOperator<Span.Builder> span, UnaryOperator<Resource.Builder> resource, String expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Case c(String name, UnaryOperator<Span.Builder> span, String expected) {
        return new Case(name, span, r -> r, expected);
    }

    static Case r(String name, UnaryOperator<Span.Builder> span, UnaryOperator<Resource.Builder> resource, String expected) {
        return new Case(name, span, resource, expected);
    }

    static Span.Builder base() {
        return Span.newBuilder().setTraceId(ByteString.fromHex(TRACE)).setSpanId(ByteString.fromHex(SPAN))
                .setName("chat gpt-4o").setKind(Span.SpanKind.SPAN_KIND_CLIENT)
                .setStartTimeUnixNano(START).setEndTimeUnixNano(START + 1_500_999_999L);
    }

    static Resource.Builder service(Resource.Builder r) {
        return r.addAttributes(kv("service.name", str("support-bot")));
    }

    static KeyValue kv(String k, AnyValue v) {
        return KeyValue.newBuilder().setKey(k).setValue(v).build();
    }

    static AnyValue str(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    static UnaryOperator<Span.Builder> attr(String k, AnyValue v) {
        return s -> s.addAttributes(kv(k, v));
    }

    static UnaryOperator<Span.Builder> attr(String k, String v) {
        return attr(k, str(v));
    }

    static JsonNode map(Case c) throws Exception {
        Span span = c.span().apply(base()).build();
        Resource resource = c.resource().apply(Resource.newBuilder()).build();
        SpanMapping.Mapped m = SpanMapping.map(resource, InstrumentationScope.newBuilder().setName("lib").setVersion("1.2").build(), span);
        EventValidator.validate(m.fields());   // every case is a valid event
        return m.fields();
    }

    /** The node as a parser would build it from its text (a long and an int of one value then compare equal). */
    static JsonNode reread(JsonNode n) throws Exception {
        return n == null ? null : JSON.readTree(n.toString());
    }

    static void check(Case c, String field) throws Exception {
        JsonNode v = map(c).at(field);
        if (c.expected() == null) {
            assertThat(v.isMissingNode()).as(c.name() + ": " + field + " absent, was " + v).isTrue();
        } else {
            assertThat(reread(v)).as(c.name()).isEqualTo(JSON.readTree(c.expected()));
        }
    }

    static Stream<Case> agentId() {
        return Stream.of(
                r("gen_ai.agent.id", attr("gen_ai.agent.id", "agent-7").andThen(attr("gen_ai.agent.name", "Helper"))::apply,
                        SpanMappingTest::service, "\"agent-7\""),
                r("no gen_ai.agent.id: gen_ai.agent.name", attr("gen_ai.agent.name", "Helper"), SpanMappingTest::service, "\"Helper\""),
                r("no agent attribute: service.name", s -> s, SpanMappingTest::service, "\"support-bot\""),
                c("no service.name: unknown_service", s -> s, "\"unknown_service\""),
                c("an empty gen_ai.agent.id is not a name", attr("gen_ai.agent.id", ""), "\"unknown_service\""),
                c("a non-string gen_ai.agent.id is not a name", attr("gen_ai.agent.id", AnyValue.newBuilder().setIntValue(7).build()),
                        "\"unknown_service\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void agentId(Case c) throws Exception {
        check(c, "/agent_id");
    }

    static Stream<Case> sessionId() {
        return Stream.of(
                c("gen_ai.conversation.id", attr("gen_ai.conversation.id", "conv-1"), "\"conv-1\""),
                c("no conversation: the trace id in lowercase hex", s -> s, "\"" + TRACE + "\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void sessionId(Case c) throws Exception {
        check(c, "/session_id");
    }

    @Test
    void sourceAndCaptureMethod() throws Exception {
        JsonNode e = map(c("any", s -> s, null));
        assertThat(e.get("source").asText()).isEqualTo("otlp");
        assertThat(e.get("capture_method").asText()).isEqualTo("otlp");
    }

    static Stream<Case> actionType() {
        return Stream.of(
                c("execute_tool", attr("gen_ai.operation.name", "execute_tool"), "\"TOOL_CALL\""),
                c("chat", attr("gen_ai.operation.name", "chat"), "\"LLM_CALL\""),
                c("text_completion", attr("gen_ai.operation.name", "text_completion"), "\"LLM_CALL\""),
                c("generate_content", attr("gen_ai.operation.name", "generate_content"), "\"LLM_CALL\""),
                c("embeddings", attr("gen_ai.operation.name", "embeddings"), "\"LLM_CALL\""),
                c("invoke_agent", attr("gen_ai.operation.name", "invoke_agent"), "\"AGENT_CALL\""),
                c("create_agent", attr("gen_ai.operation.name", "create_agent"), "\"AGENT_CALL\""),
                c("invoke_workflow", attr("gen_ai.operation.name", "invoke_workflow"), "\"AGENT_CALL\""),
                c("retrieval", attr("gen_ai.operation.name", "retrieval"), "\"RETRIEVAL\""),
                c("another value upper-cased", attr("gen_ai.operation.name", "rerank"), "\"RERANK\""),
                c("no operation name: SPAN", s -> s, "\"SPAN\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void actionType(Case c) throws Exception {
        check(c, "/action_type");
    }

    static Stream<Case> actionName() {
        return Stream.of(
                c("gen_ai.tool.name", attr("gen_ai.tool.name", "get_weather"), "\"get_weather\""),
                c("no tool name: the span name", s -> s, "\"chat gpt-4o\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void actionName(Case c) throws Exception {
        check(c, "/action_name");
    }

    static UnaryOperator<Span.Builder> status(Status.StatusCode code, String message) {
        return s -> s.setStatus(Status.newBuilder().setCode(code).setMessage(message));
    }

    static Stream<Case> actionStatus() {
        return Stream.of(
                c("ERROR", status(Status.StatusCode.STATUS_CODE_ERROR, "boom"), "\"error\""),
                c("OK", status(Status.StatusCode.STATUS_CODE_OK, ""), "\"success\""),
                c("UNSET", s -> s, "\"success\""),
                c("an unknown status code", s -> s.setStatus(Status.newBuilder().setCodeValue(9)), "\"success\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void actionStatus(Case c) throws Exception {
        check(c, "/action_status");
    }

    static Stream<Case> errorMessage() {
        return Stream.of(
                c("ERROR with a message", status(Status.StatusCode.STATUS_CODE_ERROR, "rate limited")
                        .andThen(attr("error.type", "429"))::apply, "\"rate limited\""),
                c("ERROR without a message: error.type", status(Status.StatusCode.STATUS_CODE_ERROR, "")
                        .andThen(attr("error.type", "timeout"))::apply, "\"timeout\""),
                c("ERROR with neither: absent", status(Status.StatusCode.STATUS_CODE_ERROR, ""), null),
                c("not ERROR: absent even with error.type", attr("error.type", "timeout"), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void errorMessage(Case c) throws Exception {
        check(c, "/error_message");
    }

    static Stream<Case> timestamp() {
        return Stream.of(
                c("start time with microseconds, nanoseconds truncated", s -> s, "\"2025-11-25T16:00:00.123456Z\""),
                c("a whole second", s -> s.setStartTimeUnixNano(1_764_086_400_000_000_000L), "\"2025-11-25T16:00:00.000000Z\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void timestamp(Case c) throws Exception {
        check(c, "/timestamp");
    }

    static Stream<Case> durationMs() {
        return Stream.of(
                c("whole milliseconds, rounded down", s -> s, "1500"),
                c("end equal to start", s -> s.setEndTimeUnixNano(START), "0"),
                c("end before start: absent", s -> s.setEndTimeUnixNano(START - 1), null),
                c("no end time: absent", s -> s.setEndTimeUnixNano(0), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void durationMs(Case c) throws Exception {
        check(c, "/duration_ms");
    }

    static Stream<Case> actionInput() {
        return Stream.of(
                c("tool arguments parsed as JSON", attr("gen_ai.tool.call.arguments", "{\"city\":\"Paris\"}"),
                        "{\"arguments\":{\"city\":\"Paris\"}}"),
                c("tool arguments that are not JSON: the string", attr("gen_ai.tool.call.arguments", "city=Paris"),
                        "{\"arguments\":\"city=Paris\"}"),
                c("input messages", attr("gen_ai.input.messages", "[{\"role\":\"user\",\"parts\":[]}]"),
                        "{\"messages\":[{\"role\":\"user\",\"parts\":[]}]}"),
                c("arguments win over messages", attr("gen_ai.tool.call.arguments", "[1]")
                        .andThen(attr("gen_ai.input.messages", "[]"))::apply, "{\"arguments\":[1]}"),
                c("JSON RFC 8785 cannot hash: the string", attr("gen_ai.tool.call.arguments", "{\"n\":12345678901234567890}"),
                        "{\"arguments\":\"{\\\"n\\\":12345678901234567890}\"}"),
                c("neither: absent", s -> s, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void actionInput(Case c) throws Exception {
        check(c, "/action_input");
    }

    static Stream<Case> actionOutput() {
        return Stream.of(
                c("tool result parsed as JSON", attr("gen_ai.tool.call.result", "{\"temp\":21.5}"), "{\"result\":{\"temp\":21.5}}"),
                c("tool result that is not JSON", attr("gen_ai.tool.call.result", "sunny"), "{\"result\":\"sunny\"}"),
                c("output messages", attr("gen_ai.output.messages", "[{\"role\":\"assistant\"}]"),
                        "{\"messages\":[{\"role\":\"assistant\"}]}"),
                c("neither: absent", s -> s, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void actionOutput(Case c) throws Exception {
        check(c, "/action_output");
    }

    static Stream<Case> labels() {
        return Stream.of(
                r("service and env", s -> s, r -> service(r).addAttributes(kv("deployment.environment.name", str("prod"))),
                        "{\"service\":\"support-bot\",\"env\":\"prod\"}"),
                r("service only", s -> s, SpanMappingTest::service, "{\"service\":\"support-bot\"}"),
                c("no service.name: absent", s -> s, null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void labels(Case c) throws Exception {
        check(c, "/labels");
    }

    static AnyValue.Builder any() {
        return AnyValue.newBuilder();
    }

    static Stream<Case> metadata() {
        return Stream.of(
                c("ids and kind of a root span", s -> s, "{\"trace_id\":\"" + TRACE + "\",\"span_id\":\"" + SPAN + "\","
                        + "\"kind\":\"SPAN_KIND_CLIENT\",\"scope\":{\"name\":\"lib\",\"version\":\"1.2\"},"
                        + "\"attributes\":{},\"resource\":{},\"events\":[]}"),
                c("parent span id", s -> s.setParentSpanId(ByteString.fromHex(PARENT)), "\"" + PARENT + "\""),
                c("a parent of zeros is a root", s -> s.setParentSpanId(ByteString.copyFrom(new byte[8])), null),
                c("an unknown kind keeps its number", s -> s.setKindValue(9), "\"SPAN_KIND_9\""),
                c("attributes not used by a row stay; used ones go", attr("gen_ai.tool.name", "t")
                        .andThen(attr("gen_ai.request.model", "gpt-4o"))::apply, "{\"gen_ai.request.model\":\"gpt-4o\"}"),
                c("gen_ai.agent.name stays when gen_ai.agent.id named the agent", attr("gen_ai.agent.id", "a")
                        .andThen(attr("gen_ai.agent.name", "n"))::apply, "{\"gen_ai.agent.name\":\"n\"}"),
                c("error.type stays when the status message was used", status(Status.StatusCode.STATUS_CODE_ERROR, "m")
                        .andThen(attr("error.type", "e"))::apply, "{\"error.type\":\"e\"}"),
                c("int64 within 2^53 as a number", attr("n", any().setIntValue(1L << 53).build()), "{\"n\":9007199254740992}"),
                c("int64 above 2^53 as a string", attr("n", any().setIntValue((1L << 53) + 1).build()), "{\"n\":\"9007199254740993\"}"),
                c("int64 below -2^53 as a string", attr("n", any().setIntValue(Long.MIN_VALUE).build()),
                        "{\"n\":\"-9223372036854775808\"}"),
                c("double", attr("d", any().setDoubleValue(0.1).build()), "{\"d\":0.1}"),
                c("NaN", attr("d", any().setDoubleValue(Double.NaN).build()), "{\"d\":\"NaN\"}"),
                c("infinities", attr("p", any().setDoubleValue(Double.POSITIVE_INFINITY).build())
                        .andThen(attr("m", any().setDoubleValue(Double.NEGATIVE_INFINITY).build()))::apply,
                        "{\"p\":\"Infinity\",\"m\":\"-Infinity\"}"),
                c("bool", attr("b", any().setBoolValue(true).build()), "{\"b\":true}"),
                c("bytes as standard base64", attr("b", any().setBytesValue(ByteString.copyFrom(new byte[] {-5, -1, 0})).build()),
                        "{\"b\":\"+/8A\"}"),
                c("nested arrays and maps", attr("x", any().setArrayValue(ArrayValue.newBuilder()
                        .addValues(any().setArrayValue(ArrayValue.newBuilder().addValues(str("a")).addValues(any().setIntValue(1))))
                        .addValues(any().setKvlistValue(KeyValueList.newBuilder().addValues(kv("k", any()
                                .setKvlistValue(KeyValueList.newBuilder().addValues(kv("z", any().setBoolValue(false).build())))
                                .build()))))).build()),
                        "{\"x\":[[\"a\",1],{\"k\":{\"z\":false}}]}"),
                c("an empty value is null", attr("e", any().build()), "{\"e\":null}"),
                r("resource attributes, service.name included", s -> s, SpanMappingTest::service, "{\"service.name\":\"support-bot\"}"),
                c("span events with name, time and attributes", s -> s.addEvents(Span.Event.newBuilder().setName("gen_ai.choice")
                        .setTimeUnixNano(START + 1000).addAttributes(kv("index", any().setIntValue(0).build()))),
                        "[{\"name\":\"gen_ai.choice\",\"time\":\"2025-11-25T16:00:00.123457Z\",\"attributes\":{\"index\":0}}]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void metadata(Case c) throws Exception {
        JsonNode otel = map(c).at("/metadata/otel");
        JsonNode expected = c.expected() == null ? null : JSON.readTree(c.expected());
        JsonNode actual = switch (c.name()) {
            case "ids and kind of a root span" -> otel;
            case "parent span id", "a parent of zeros is a root" -> otel.get("parent_span_id");
            case "an unknown kind keeps its number" -> otel.get("kind");
            case "resource attributes, service.name included" -> otel.get("resource");
            case "span events with name, time and attributes" -> otel.get("events");
            default -> otel.get("attributes");
        };
        assertThat(reread(actual)).as(c.name()).isEqualTo(expected);
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                Arguments.of("trace id of 15 bytes", (UnaryOperator<Span.Builder>) s -> s.setTraceId(ByteString.copyFrom(new byte[15])),
                        "trace id is 15 bytes"),
                Arguments.of("trace id of zeros", (UnaryOperator<Span.Builder>) s -> s.setTraceId(ByteString.copyFrom(new byte[16])),
                        "trace id is all zeros"),
                Arguments.of("no trace id", (UnaryOperator<Span.Builder>) s -> s.clearTraceId(), "trace id is 0 bytes"),
                Arguments.of("span id of 9 bytes", (UnaryOperator<Span.Builder>) s -> s.setSpanId(ByteString.copyFrom(new byte[9])),
                        "span id is 9 bytes"),
                Arguments.of("span id of zeros", (UnaryOperator<Span.Builder>) s -> s.setSpanId(ByteString.copyFrom(new byte[8])),
                        "span id is all zeros"),
                Arguments.of("parent id of 4 bytes", (UnaryOperator<Span.Builder>) s -> s.setParentSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4})),
                        "parent span id is 4 bytes"),
                Arguments.of("no start time", (UnaryOperator<Span.Builder>) s -> s.setStartTimeUnixNano(0), "no start time"),
                Arguments.of("start after 2262", (UnaryOperator<Span.Builder>) s -> s.setStartTimeUnixNano(-1), "after the year 2262"),
                Arguments.of("a key twice", (UnaryOperator<Span.Builder>) s -> s.addAttributes(kv("k", str("a"))).addAttributes(kv("k", str("b"))), "appears twice"),
                Arguments.of("a lone surrogate", attr("k", "a\uD800b"), "lone UTF-16 surrogate"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void refused(String name, UnaryOperator<Span.Builder> span, String message) {
        assertThatThrownBy(() -> SpanMapping.map(Resource.getDefaultInstance(), InstrumentationScope.getDefaultInstance(),
                span.apply(base()).build())).isInstanceOf(SpanRejected.class).hasMessageContaining(message);
    }
}
