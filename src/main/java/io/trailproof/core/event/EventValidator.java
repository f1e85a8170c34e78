package io.trailproof.core.event;

import static io.trailproof.core.event.EventFields.*;
import static io.trailproof.core.event.EventLimits.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The ingestion rules of src/site/events.md#accepted-fields for one event.
 *
 * <p>The tree is expected to come from {@link io.trailproof.core.json.StrictJson}, which already
 * refused duplicate keys, invalid Unicode and numbers RFC 8785 cannot hash; this class checks the
 * event's shape. It also checks nesting itself, because a batch item sits one level deeper in the
 * request than the event does.
 */
public final class EventValidator {
    private EventValidator() {}

    /** Longest {@code decision_id}: a decision's id is a UUID; some room for a foreign one, which then fails its check. */
    private static final int DECISION_ID_MAX_LENGTH = 128;

    private static final Set<String> SHORT_STRINGS =
            Set.of(SESSION_ID, SOURCE, CAPTURE_METHOD, ACTION_TYPE, ACTION_NAME, ACTION_STATUS);
    private static final Set<String> OBJECTS = Set.of(ACTION_INPUT, ACTION_OUTPUT, METADATA);
    /** Client fields in the order they are reported when several are unknown or wrong. */
    private static final List<String> ACCEPTED = List.of(AGENT_ID, SESSION_ID, SOURCE, CAPTURE_METHOD,
            ACTION_TYPE, ACTION_NAME, ACTION_STATUS, ERROR_MESSAGE, ACTION_INPUT, ACTION_OUTPUT,
            METADATA, TIMESTAMP, DURATION_MS, LABELS, CAPTURE_ID, CAPTURE_SEQ, CAPTURE_LAST, CAPTURE_DROPPED,
            DECISION_ID);
    private static final Set<String> ACCEPTED_SET = Set.copyOf(ACCEPTED);

    /**
     * Checks an event and returns its client fields, with {@code null}-valued optional fields
     * removed. The result is a new object; nested values are shared with {@code node}, not copied.
     *
     * @throws EventRejection naming the first offending field
     */
    public static ObjectNode validate(JsonNode node) throws EventRejection {
        if (node == null || !node.isObject()) {
            throw new EventRejection(null, "an event must be a JSON object");
        }
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            if (!ACCEPTED_SET.contains(e.getKey())) {
                unknown.add("'" + e.getKey() + "'");
            }
        }
        if (!unknown.isEmpty()) {
            String first = unknown.get(0);
            throw new EventRejection(first.substring(1, first.length() - 1),
                    (unknown.size() == 1 ? "unknown field " : "unknown fields ") + String.join(", ", unknown)
                            + "; accepted fields are " + String.join(", ", ACCEPTED));
        }

        ObjectNode out = JsonNodeFactory.instance.objectNode();
        for (String field : ACCEPTED) {
            JsonNode value = node.get(field);
            if (value == null || value.isNull()) {
                if (field.equals(AGENT_ID)) {
                    throw new EventRejection(AGENT_ID, "agent_id is required");
                }
                continue;
            }
            check(field, value);
            out.set(field, value);
        }
        checkCapture(out);
        return out;
    }

    /**
     * Refuses a stored event whose canonical form exceeds {@link EventLimits#MAX_CANONICAL_BYTES};
     * the sealer calls this with the length of the RFC 8785 bytes it produced.
     */
    public static void checkCanonicalSize(int canonicalBytes) throws EventRejection {
        if (canonicalBytes > MAX_CANONICAL_BYTES) {
            throw new EventRejection(null, "the event is too large: its canonical form is " + canonicalBytes
                    + " bytes and the limit is " + MAX_CANONICAL_BYTES + " (1 MiB); send less data in"
                    + " action_input, action_output or metadata");
        }
    }

    private static void check(String field, JsonNode value) throws EventRejection {
        switch (field) {
            case AGENT_ID -> {
                String s = requireString(field, value);
                if (s.isEmpty() || s.length() > AGENT_ID_MAX_LENGTH) {
                    throw new EventRejection(field, "agent_id must be 1.." + AGENT_ID_MAX_LENGTH
                            + " characters long, it is " + s.length());
                }
                if (s.equals(ERASURES_AGENT)) {
                    throw new EventRejection(field, "agent_id " + ERASURES_AGENT + " is reserved for the service's "
                            + "record of erasures (src/site/erasure.md); use another agent_id");
                }
                if (s.equals(ACCESS_AGENT)) {
                    throw new EventRejection(field, "agent_id " + ACCESS_AGENT + " is reserved for the service's "
                            + "record of who read the trail (src/site/sign-in.md); use another agent_id");
                }
                if (s.equals(POLICIES_AGENT)) {
                    throw new EventRejection(field, "agent_id " + POLICIES_AGENT + " is reserved for the service's "
                            + "record of gate policies (src/site/gates.md); use another agent_id");
                }
                int cc = firstControlChar(s);
                if (cc >= 0) {
                    throw new EventRejection(field, String.format(
                            "agent_id must not contain control characters (found U+%04X at index %d)",
                            (int) s.charAt(cc), cc));
                }
            }
            case ACTION_TYPE -> {
                requireLength(field, requireString(field, value), STRING_MAX_LENGTH);
                if (value.textValue().equals(GAP_ACTION_TYPE)) {
                    throw new EventRejection(field, "action_type " + GAP_ACTION_TYPE + " is reserved for the"
                            + " service's record of capture gaps (src/site/completeness.md); use another action_type");
                }
                if (SERVICE_ACTION_TYPES.contains(value.textValue())) {
                    throw new EventRejection(field, "action_type " + value.textValue() + " is written by the service "
                            + "only (src/site/gates.md): ask for a decision with POST /v1/decisions instead");
                }
            }
            case ERROR_MESSAGE -> requireLength(field, requireString(field, value), ERROR_MESSAGE_MAX_LENGTH);
            case TIMESTAMP -> {
                String s = requireString(field, value);
                try {
                    EventTime.parseTimestamp(s);
                } catch (DateTimeParseException e) {
                    throw new EventRejection(field, "timestamp must be an ISO 8601 date-time such as"
                            + " 2026-11-22T10:00:00Z, 2026-11-22T11:00:00+01:00 or 2026-11-22T10:00:00"
                            + " (read as UTC), not '" + abbreviate(s) + "'");
                }
            }
            case DURATION_MS -> checkDuration(value);
            case DECISION_ID -> {
                String s = requireString(field, value);
                if (s.isEmpty() || s.length() > DECISION_ID_MAX_LENGTH) {
                    throw new EventRejection(field, "decision_id must be the decision_id of a decision (1.."
                            + DECISION_ID_MAX_LENGTH + " characters), it is " + s.length() + " characters long");
                }
            }
            case CAPTURE_ID -> {
                String s = requireString(field, value);
                if (s.isEmpty() || s.length() > CAPTURE_ID_MAX_LENGTH) {
                    throw new EventRejection(field, "capture_id must be 1.." + CAPTURE_ID_MAX_LENGTH
                            + " characters long, it is " + s.length());
                }
                int cc = firstControlChar(s);
                if (cc >= 0) {
                    throw new EventRejection(field, String.format(
                            "capture_id must not contain control characters (found U+%04X at index %d)",
                            (int) s.charAt(cc), cc));
                }
            }
            case CAPTURE_SEQ -> captureNumber(field, value);
            case CAPTURE_LAST -> {
                if (!value.isBoolean()) {
                    throw new EventRejection(field, "capture_last must be true or false, not " + typeOf(value));
                }
            }
            case CAPTURE_DROPPED -> {
                if (!value.isArray() || value.size() != 2) {
                    throw new EventRejection(field, "capture_dropped must be an array [from, to] of two"
                            + " capture_seq numbers, not " + (value.isArray() ? "an array of " + value.size()
                            : typeOf(value)));
                }
                long from = captureNumber(field, value.get(0));
                long to = captureNumber(field, value.get(1));
                if (from > to) {
                    throw new EventRejection(field, "capture_dropped [from, to] must have from <= to, not ["
                            + from + ", " + to + "]");
                }
            }
            case LABELS -> checkLabels(value);
            default -> {
                if (SHORT_STRINGS.contains(field)) {
                    requireLength(field, requireString(field, value), STRING_MAX_LENGTH);
                } else if (OBJECTS.contains(field)) {
                    if (!value.isObject()) {
                        throw new EventRejection(field, field + " must be a JSON object, not " + typeOf(value));
                    }
                    checkDepth(field, value, 2);
                } else {
                    throw new IllegalStateException("no rule for accepted field " + field);
                }
            }
        }
    }

    /**
     * The rules that tie the capture fields together (src/site/completeness.md#capture-sequences):
     * {@code capture_id} and {@code capture_seq} come together, the other two need them, and the
     * numbers a client reports lost lie before the event that reports them.
     */
    private static void checkCapture(ObjectNode out) throws EventRejection {
        boolean id = out.has(CAPTURE_ID);
        boolean seq = out.has(CAPTURE_SEQ);
        if (id && !seq) {
            throw new EventRejection(CAPTURE_SEQ, "capture_seq is required with capture_id");
        }
        if (seq && !id) {
            throw new EventRejection(CAPTURE_ID, "capture_id is required with capture_seq");
        }
        for (String f : List.of(CAPTURE_LAST, CAPTURE_DROPPED)) {
            if (out.has(f) && !id) {
                throw new EventRejection(f, f + " needs capture_id and capture_seq");
            }
        }
        JsonNode dropped = out.get(CAPTURE_DROPPED);
        if (dropped != null && dropped.get(1).longValue() >= out.get(CAPTURE_SEQ).longValue()) {
            throw new EventRejection(CAPTURE_DROPPED, "capture_dropped must name numbers before this event's"
                    + " capture_seq " + out.get(CAPTURE_SEQ).longValue() + ", not up to " + dropped.get(1).longValue());
        }
    }

    /** A capture number: an integer 1..2^53; returns it. */
    private static long captureNumber(String field, JsonNode value) throws EventRejection {
        if ((value.isInt() || value.isLong()) && value.longValue() >= 1 && value.longValue() <= CAPTURE_SEQ_MAX) {
            return value.longValue();
        }
        String rule = field + " must hold positive integers (1.." + CAPTURE_SEQ_MAX + ")";
        if (!value.isNumber()) {
            throw new EventRejection(field, rule + ", not " + typeOf(value));
        }
        BigDecimal v = value.decimalValue();
        boolean integral = value.isIntegralNumber() || v.stripTrailingZeros().scale() <= 0;
        if (!integral || v.signum() <= 0 || v.compareTo(BigDecimal.valueOf(CAPTURE_SEQ_MAX)) > 0) {
            throw new EventRejection(field, rule + ", not " + v.stripTrailingZeros().toPlainString());
        }
        return v.longValueExact();
    }

    private static String requireString(String field, JsonNode value) throws EventRejection {
        if (!value.isTextual()) {
            throw new EventRejection(field, field + " must be a string, not " + typeOf(value));
        }
        return value.textValue();
    }

    private static void requireLength(String field, String s, int max) throws EventRejection {
        if (s.length() > max) {
            throw new EventRejection(field, field + " must be at most " + max + " characters long, it is "
                    + s.length());
        }
    }

    private static void checkDuration(JsonNode value) throws EventRejection {
        if ((value.isInt() || value.isLong()) && value.longValue() >= 0 && value.longValue() <= DURATION_MS_MAX) {
            return; // the usual case, without the decimal comparison below
        }
        String rule = "duration_ms must be an integer between 0 and " + DURATION_MS_MAX;
        if (!value.isNumber()) {
            throw new EventRejection(DURATION_MS, rule + ", not " + typeOf(value));
        }
        BigDecimal v = value.decimalValue();
        boolean integral = value.isIntegralNumber() || v.stripTrailingZeros().scale() <= 0;
        if (!integral || v.signum() < 0 || v.compareTo(BigDecimal.valueOf(DURATION_MS_MAX)) > 0) {
            throw new EventRejection(DURATION_MS, rule + ", not " + value.asText());
        }
    }

    private static void checkLabels(JsonNode value) throws EventRejection {
        if (!value.isObject()) {
            throw new EventRejection(LABELS, "labels must be a JSON object of string to string, not "
                    + typeOf(value));
        }
        if (value.size() > MAX_LABELS) {
            throw new EventRejection(LABELS, "labels may hold at most " + MAX_LABELS + " labels, it holds "
                    + value.size());
        }
        for (Map.Entry<String, JsonNode> e : value.properties()) {
            String key = e.getKey();
            if (!isLabelKey(key)) {
                throw new EventRejection(LABELS, "labels key '" + abbreviate(key) + "' must be 1.."
                        + LABEL_KEY_MAX_LENGTH + " characters of A-Z a-z 0-9 _ . : -");
            }
            JsonNode v = e.getValue();
            if (!v.isTextual()) {
                throw new EventRejection(LABELS, "labels value of '" + key + "' must be a string, not "
                        + typeOf(v));
            }
            if (v.textValue().length() > LABEL_VALUE_MAX_LENGTH) {
                throw new EventRejection(LABELS, "labels value of '" + key + "' must be at most "
                        + LABEL_VALUE_MAX_LENGTH + " characters long, it is " + v.textValue().length());
            }
        }
    }

    /** Whether {@code key} has the shape of a label key (src/site/events.md#accepted-fields): 1..128 of A-Z a-z 0-9 _ . : - */
    public static boolean isLabelKey(String key) {
        if (key.isEmpty() || key.length() > LABEL_KEY_MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '.' || c == ':' || c == '-';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /** Enforces src/site/events.md#accepted-fields's nesting limit; {@code level} is the nesting level of {@code node}. */
    private static void checkDepth(String field, JsonNode node, int level) throws EventRejection {
        if (level > MAX_NESTING_DEPTH) {
            throw new EventRejection(field, field + " nests deeper than " + MAX_NESTING_DEPTH
                    + " levels (the event object is level 1); flatten the structure");
        }
        for (JsonNode child : node) {
            if (child.isContainerNode()) {
                checkDepth(field, child, level + 1);
            }
        }
    }

    /** Index of the first Unicode Cc character (U+0000-001F, U+007F-009F), or -1. */
    private static int firstControlChar(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                return i;
            }
        }
        return -1;
    }

    private static String typeOf(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case NULL -> "null";
            default -> value.getNodeType().toString().toLowerCase(Locale.ROOT);
        };
    }

    private static String abbreviate(String s) {
        return s.length() > 64 ? s.substring(0, 61) + "..." : s;
    }
}
