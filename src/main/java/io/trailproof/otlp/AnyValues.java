package io.trailproof.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;

import java.util.Base64;
import java.util.List;

/**
 * OTLP {@code AnyValue} and attribute lists as JSON (src/site/ingestion.md#otlp): strings, booleans, arrays and
 * maps as such; an int as a number when |v| &le; 2^53 (beyond, a double cannot hold it exactly and
 * RFC 8785 could not hash it faithfully), else as its decimal string; a double as a number, NaN and
 * the infinities as the strings {@code NaN}, {@code Infinity}, {@code -Infinity}; bytes as standard
 * base64. An unset value is {@code null}; so is {@code string_value_strindex}, an index into a
 * dictionary that only the profiles signal carries.
 *
 * <p>Refused, so that nothing is stored differently from what was sent: a key that appears twice
 * in one list or map (a JSON object cannot hold both), and a string with a lone UTF-16 surrogate
 * (possible only through OTLP/JSON escapes; it has no UTF-8 form to hash). Depth needs no check
 * here: the decoders stop at protobuf's recursion limit (100), and the event rules (nesting 64)
 * refuse what is deeper than an event may be.
 */
final class AnyValues {

    static final long MAX_EXACT_INTEGER = 1L << 53;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private AnyValues() {
    }

    /** The attributes as one JSON object, in the order sent. */
    static ObjectNode attributes(List<KeyValue> list, String where) throws SpanRejected {
        ObjectNode out = NODES.objectNode();
        for (KeyValue kv : list) {
            put(out, kv, where);
        }
        return out;
    }

    /** Adds one attribute to {@code out}; refuses a key already there. */
    static void put(ObjectNode out, KeyValue kv, String where) throws SpanRejected {
        String key = text(kv.getKey(), where);
        if (out.has(key)) {
            throw new SpanRejected("the key '" + abbreviate(key) + "' appears twice in " + where
                    + "; keys of an attribute list or map must be unique");
        }
        out.set(key, json(kv.getValue(), where + "." + key));
    }

    static JsonNode json(AnyValue v, String where) throws SpanRejected {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> NODES.textNode(text(v.getStringValue(), where));
            case BOOL_VALUE -> NODES.booleanNode(v.getBoolValue());
            case INT_VALUE -> integer(v.getIntValue());
            case DOUBLE_VALUE -> real(v.getDoubleValue());
            case BYTES_VALUE -> NODES.textNode(Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
            case ARRAY_VALUE -> {
                ArrayNode a = NODES.arrayNode(v.getArrayValue().getValuesCount());
                for (AnyValue item : v.getArrayValue().getValuesList()) {
                    a.add(json(item, where + "[]"));
                }
                yield a;
            }
            case KVLIST_VALUE -> attributes(v.getKvlistValue().getValuesList(), where);
            case STRING_VALUE_STRINDEX, VALUE_NOT_SET -> NODES.nullNode();
        };
    }

    static JsonNode integer(long v) {
        return v >= -MAX_EXACT_INTEGER && v <= MAX_EXACT_INTEGER ? NODES.numberNode(v) : NODES.textNode(Long.toString(v));
    }

    static JsonNode real(double v) {
        if (Double.isNaN(v)) {
            return NODES.textNode("NaN");
        }
        if (Double.isInfinite(v)) {
            return NODES.textNode(v > 0 ? "Infinity" : "-Infinity");
        }
        return NODES.numberNode(v);
    }

    /** {@code s} itself, or a refusal when it holds a lone surrogate. */
    static String text(String s, String where) throws SpanRejected {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new SpanRejected("a string in " + where + " holds a lone UTF-16 surrogate at position " + i
                        + "; send valid Unicode text");
            }
        }
        return s;
    }

    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }
}
