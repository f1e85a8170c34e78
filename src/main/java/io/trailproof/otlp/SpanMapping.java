package io.trailproof.otlp;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One OTLP span as the client fields of one event: the mapping table of src/site/ingestion.md#otlp, row by row.
 * Pure: no I/O, no clock; the result still goes through the event rules of src/site/events.md#accepted-fields (the
 * caller validates it as it validates any event).
 *
 * <p>Decisions where the contract is silent (src/site/ingestion.md#mapping): a row takes an attribute
 * only when its value is a non-empty string, and an attribute is "used by a row" only when its value
 * went into a field, so {@code gen_ai.agent.name} stays in {@code metadata.otel.attributes} when
 * {@code gen_ai.agent.id} named the agent, and {@code error.type} when the status message was the
 * error: nothing sent is dropped. A span without a start time, or with a time past 2262 (beyond a
 * signed 64-bit count of nanoseconds), is refused rather than stored at a made-up instant; a parent
 * span id of zeros means a root span, as OTLP allows.
 */
public final class SpanMapping {

    /** What a span becomes: its event fields (not yet validated), its identity and its start time. */
    public record Mapped(ObjectNode fields, String traceId, String spanId, long startNanos) {
    }

    static final String SOURCE_OTLP = "otlp";
    static final String UNKNOWN_SERVICE = "unknown_service";

    private static final String AGENT_ID_ATTR = "gen_ai.agent.id";
    private static final String AGENT_NAME_ATTR = "gen_ai.agent.name";
    private static final String CONVERSATION_ATTR = "gen_ai.conversation.id";
    private static final String OPERATION_ATTR = "gen_ai.operation.name";
    private static final String TOOL_NAME_ATTR = "gen_ai.tool.name";
    private static final String ERROR_TYPE_ATTR = "error.type";
    private static final String TOOL_ARGUMENTS_ATTR = "gen_ai.tool.call.arguments";
    private static final String INPUT_MESSAGES_ATTR = "gen_ai.input.messages";
    private static final String TOOL_RESULT_ATTR = "gen_ai.tool.call.result";
    private static final String OUTPUT_MESSAGES_ATTR = "gen_ai.output.messages";
    private static final String SERVICE_NAME = "service.name";
    private static final String DEPLOYMENT_ENV = "deployment.environment.name";

    /** gen_ai.operation.name values with a fixed action_type; any other value is upper-cased. */
    private static final Map<String, String> ACTION_TYPES = Map.ofEntries(
            Map.entry("execute_tool", "TOOL_CALL"),
            Map.entry("chat", "LLM_CALL"), Map.entry("text_completion", "LLM_CALL"),
            Map.entry("generate_content", "LLM_CALL"), Map.entry("embeddings", "LLM_CALL"),
            Map.entry("invoke_agent", "AGENT_CALL"), Map.entry("create_agent", "AGENT_CALL"),
            Map.entry("invoke_workflow", "AGENT_CALL"),
            Map.entry("retrieval", "RETRIEVAL"));

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();

    private SpanMapping() {
    }

    /**
     * Maps one span of {@code resource} and {@code scope}.
     *
     * @throws SpanRejected when the span's ids are malformed (trace id not 16 bytes or all zeros,
     *     span id not 8 bytes or all zeros, a parent span id neither empty nor 8 bytes), it has no
     *     representable start time, or a value cannot be stored faithfully ({@link AnyValues})
     */
    public static Mapped map(Resource resource, InstrumentationScope scope, Span span) throws SpanRejected {
        String traceId = id(span.getTraceId(), 16, "trace id");
        String spanId = id(span.getSpanId(), 8, "span id");
        String parentId = parent(span.getParentSpanId());
        long start = span.getStartTimeUnixNano();
        if (start == 0) {
            throw new SpanRejected("the span has no start time (start_time_unix_nano is 0)");
        }
        String timestamp = time(start, "start time");

        ObjectNode attributes = AnyValues.attributes(span.getAttributesList(), "the span's attributes");
        ObjectNode resourceAttrs = AnyValues.attributes(resource.getAttributesList(), "the resource's attributes");
        Set<String> used = new HashSet<>();
        String service = string(resourceAttrs, SERVICE_NAME);

        ObjectNode e = NODES.objectNode();
        e.put(AGENT_ID, firstOf(attributes, used, AGENT_ID_ATTR, AGENT_NAME_ATTR,
                service != null ? service : UNKNOWN_SERVICE));
        e.put(SESSION_ID, firstOf(attributes, used, CONVERSATION_ATTR, null, traceId));
        e.put(SOURCE, SOURCE_OTLP);
        e.put(CAPTURE_METHOD, SOURCE_OTLP);
        String operation = take(attributes, used, OPERATION_ATTR);
        e.put(ACTION_TYPE, operation == null ? "SPAN"
                : ACTION_TYPES.getOrDefault(operation, operation.toUpperCase(Locale.ROOT)));
        String tool = take(attributes, used, TOOL_NAME_ATTR);
        e.put(ACTION_NAME, tool != null ? tool : AnyValues.text(span.getName(), "the span name"));
        boolean error = span.getStatus().getCodeValue() == Status.StatusCode.STATUS_CODE_ERROR_VALUE;
        e.put(ACTION_STATUS, error ? "error" : "success");
        if (error) {
            String message = AnyValues.text(span.getStatus().getMessage(), "the status message");
            String errorMessage = !message.isEmpty() ? message : take(attributes, used, ERROR_TYPE_ATTR);
            if (errorMessage != null) {
                e.put(ERROR_MESSAGE, errorMessage);
            }
        }
        e.put(TIMESTAMP, timestamp);
        long end = span.getEndTimeUnixNano();
        if (Long.compareUnsigned(end, start) >= 0) {
            // Unsigned: a fixed64 past 2^63 is a later instant, not a negative one.
            e.put(DURATION_MS, Long.divideUnsigned(end - start, 1_000_000L));
        }
        ObjectNode input = payload(attributes, used, TOOL_ARGUMENTS_ATTR, "arguments", INPUT_MESSAGES_ATTR);
        if (input != null) {
            e.set(ACTION_INPUT, input);
        }
        ObjectNode output = payload(attributes, used, TOOL_RESULT_ATTR, "result", OUTPUT_MESSAGES_ATTR);
        if (output != null) {
            e.set(ACTION_OUTPUT, output);
        }
        ObjectNode labels = NODES.objectNode();
        if (service != null) {
            labels.put("service", service);
        }
        String env = string(resourceAttrs, DEPLOYMENT_ENV);
        if (env != null) {
            labels.put("env", env);
        }
        if (!labels.isEmpty()) {
            e.set(LABELS, labels);
        }

        ObjectNode otel = NODES.objectNode();
        otel.put("trace_id", traceId);
        otel.put("span_id", spanId);
        if (parentId != null) {
            otel.put("parent_span_id", parentId);
        }
        otel.put("kind", kind(span));
        otel.putObject("scope")
                .put("name", AnyValues.text(scope.getName(), "the scope name"))
                .put("version", AnyValues.text(scope.getVersion(), "the scope version"));
        used.forEach(attributes::remove);
        otel.set("attributes", attributes);
        otel.set("resource", resourceAttrs);
        ArrayNode events = otel.putArray("events");
        for (Span.Event ev : span.getEventsList()) {
            ObjectNode o = events.addObject();
            o.put("name", AnyValues.text(ev.getName(), "a span event's name"));
            o.put("time", time(ev.getTimeUnixNano(), "span event time"));
            o.set("attributes", AnyValues.attributes(ev.getAttributesList(), "the attributes of span event '"
                    + AnyValues.abbreviate(ev.getName()) + "'"));
        }
        e.putObject(METADATA).set("otel", otel);
        return new Mapped(e, traceId, spanId, start);
    }

    /** Lowercase hex of an id that must be {@code bytes} long and not all zeros. */
    static String id(ByteString id, int bytes, String what) throws SpanRejected {
        if (id.size() != bytes) {
            throw new SpanRejected("the " + what + " is " + id.size() + " bytes; it must be " + bytes
                    + " bytes (" + 2 * bytes + " hex digits in OTLP/JSON)");
        }
        byte[] raw = id.toByteArray();
        if (allZero(raw)) {
            throw new SpanRejected("the " + what + " is all zeros, which OTLP reserves for no id");
        }
        return HEX.formatHex(raw);
    }

    private static String parent(ByteString id) throws SpanRejected {
        if (id.isEmpty() || id.size() == 8 && allZero(id.toByteArray())) {
            return null;
        }
        if (id.size() != 8) {
            throw new SpanRejected("the parent span id is " + id.size() + " bytes; it must be empty (a root span) or 8 bytes");
        }
        return HEX.formatHex(id.toByteArray());
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** RFC 3339 UTC with microseconds (nanoseconds truncated) of an unsigned count of nanoseconds. */
    static String time(long unixNanos, String what) throws SpanRejected {
        if (unixNanos < 0) {
            throw new SpanRejected("the " + what + " is after the year 2262 (" + Long.toUnsignedString(unixNanos)
                    + " ns since 1970); send nanoseconds since 1970-01-01 UTC");
        }
        return EventTime.formatRecordedAt(Instant.ofEpochSecond(0, unixNanos));
    }

    /** SpanKind's OTLP name ("SPAN_KIND_CLIENT"); a value this version does not know as its number. */
    private static String kind(Span span) {
        Span.SpanKind k = span.getKind();
        return k == Span.SpanKind.UNRECOGNIZED ? "SPAN_KIND_" + span.getKindValue() : k.name();
    }

    /** The value of the first of two attributes that is a non-empty string (marked used), else {@code fallback}. */
    private static String firstOf(ObjectNode attrs, Set<String> used, String first, String second, String fallback) {
        String v = take(attrs, used, first);
        if (v == null && second != null) {
            v = take(attrs, used, second);
        }
        return v != null ? v : fallback;
    }

    private static String take(ObjectNode attrs, Set<String> used, String key) {
        String v = string(attrs, key);
        if (v != null) {
            used.add(key);
        }
        return v;
    }

    private static String string(ObjectNode attrs, String key) {
        JsonNode v = attrs.get(key);
        return v != null && v.isTextual() && !v.asText().isEmpty() ? v.asText() : null;
    }

    /**
     * {@code {name: v}} from the first attribute present, or {@code {"messages": v}} from the second;
     * a string v is parsed as JSON when it is JSON the event rules accept (else kept as the string).
     */
    private static ObjectNode payload(ObjectNode attrs, Set<String> used, String first, String name, String messages) {
        String key = attrs.hasNonNull(first) ? first : attrs.hasNonNull(messages) ? messages : null;
        if (key == null) {
            return null;
        }
        used.add(key);
        JsonNode v = attrs.get(key);
        if (v.isTextual()) {
            v = parsedOrText(v.asText());
        }
        ObjectNode o = NODES.objectNode();
        o.set(key.equals(first) ? name : "messages", v);
        return o;
    }

    private static JsonNode parsedOrText(String s) {
        try {
            return StrictJson.parse(s.getBytes(StandardCharsets.UTF_8), EventLimits.MAX_NESTING_DEPTH);
        } catch (JsonRejection notJson) {
            return NODES.textNode(s);
        }
    }
}
