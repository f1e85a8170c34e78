package io.trailproof.shipping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventRejection;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.json.Rfc8785;

import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Makes what the proxy saw fit the event rules (src/site/events.md#accepted-fields) without ever
 * changing it silently: a value that cannot be stored as it is (too large for one event, nested too
 * deeply, or not representable as sent) is replaced by a summary that says why and carries the
 * SHA-256 of what was left out, so the original can still be matched against the record
 * (src/site/mcp-proxy.md#what-is-recorded, src/site/llm-gateway.md#what-is-recorded).
 */
public final class EventContent {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final HexFormat HEX = HexFormat.of();
    /** Writes a value as Jackson does by default: the bytes a refused summary's hash is taken of. */
    private static final ObjectMapper PLAIN = new ObjectMapper();
    private static final String[] SUMMARISED = {EventFields.ACTION_INPUT, EventFields.ACTION_OUTPUT, EventFields.METADATA};

    /**
     * The metadata member that gives an event's place in its session (the MCP proxy's
     * {@code proxy_seq}): a summary keeps it, so the event keeps its place.
     */
    public static final String PROXY_SEQ = "proxy_seq";

    /** The reason's prefix in a summary made after the service refused an event it was sent. */
    public static final String SERVICE_REFUSED = "the service refused this content: ";
    /** The reason's prefix in a summary made before sending, because the event rules refuse the content. */
    public static final String RULES_REFUSE = "the event rules refuse this content: ";

    /**
     * The largest canonical form the proxy sends for one event: the service's limit less room for the
     * fields the service adds (id, sequence, prev_hash, recorded_at, ...).
     */
    public static final int MAX_EVENT_BYTES = EventLimits.MAX_CANONICAL_BYTES - 8 * 1024;

    /** Deepest nesting of a value placed one level below the event object. */
    public static final int MAX_VALUE_DEPTH = EventLimits.MAX_NESTING_DEPTH - 1;

    private EventContent() {
    }

    /**
     * {@code value} as an event field holding a JSON object: an object as it is, anything else
     * wrapped as {@code {wrapKey: value}}; a value nested too deeply for an event is summarised.
     */
    public static ObjectNode asObject(JsonNode value, String wrapKey) {
        ObjectNode object;
        if (value.isObject()) {
            object = (ObjectNode) value;
        } else {
            object = NODES.objectNode();
            object.set(wrapKey, value);
        }
        if (depth(object) > MAX_VALUE_DEPTH) {
            return omitted(object, "nested deeper than an event may hold (" + EventLimits.MAX_NESTING_DEPTH
                    + " levels)");
        }
        return object;
    }

    /**
     * The summary that stands for {@code value}: the reason, the size and the SHA-256 of its RFC 8785
     * canonical form (anyone can recompute it from the original message).
     */
    public static ObjectNode omitted(JsonNode value, String reason) {
        byte[] canonical = Rfc8785.canonicalize(value);
        ObjectNode summary = NODES.objectNode();
        summary.put("omitted", reason);
        summary.put("canonical_bytes", canonical.length);
        summary.put("canonical_sha256", sha256(canonical));
        return summary;
    }

    /**
     * The summary for content of a message that could not be read faithfully (a duplicate key, a
     * number that changes when read, invalid UTF-8): the reason and the SHA-256 of the whole message
     * line exactly as it passed through.
     */
    public static ObjectNode unreadable(byte[] message, String reason) {
        ObjectNode summary = NODES.objectNode();
        summary.put("omitted", "the message could not be recorded faithfully: " + reason);
        summary.put("message_bytes", message.length);
        summary.put("message_sha256", sha256(message));
        return summary;
    }

    /**
     * Shrinks {@code event} until its canonical form fits one event: the output first, then the
     * input, each replaced by its summary.
     */
    public static ObjectNode fit(ObjectNode event) {
        fitMeasured(event);
        return event;
    }

    /**
     * {@link #storable}({@link #fit}(event)), the same event or summary, with the canonical form
     * taken once instead of twice when the event fits as it is (the usual case): the size {@link #fit}
     * measured is the size {@link #storable} would measure again.
     */
    public static ObjectNode fitStorable(ObjectNode event) {
        int measured = fitMeasured(event);
        return storable(event, measured);
    }

    /** {@link #fit}; returns the canonical size of the event as it now is, or -1 when not measured since it changed. */
    private static int fitMeasured(ObjectNode event) {
        for (String field : new String[] {EventFields.ACTION_OUTPUT, EventFields.ACTION_INPUT}) {
            int size = Rfc8785.canonicalize(event).length;
            if (size <= MAX_EVENT_BYTES) {
                return size;
            }
            JsonNode value = event.get(field);
            if (value != null) {
                event.set(field, omitted(value, "larger than one event may hold ("
                        + (EventLimits.MAX_CANONICAL_BYTES >> 20) + " MiB)"));
            }
        }
        return -1;
    }

    /**
     * {@code event} if the service's event rules accept it, else a copy with its content summarised
     * by {@link #refused} with the rules' reason: the summary takes the event's place in the order, so
     * a refusal the proxy can foresee never moves an event behind later ones.
     */
    public static ObjectNode storable(ObjectNode event) {
        return storable(event, -1);
    }

    /** {@link #storable(ObjectNode)} of an event whose canonical size is known ({@code canonicalSize}), or -1. */
    private static ObjectNode storable(ObjectNode event, int canonicalSize) {
        try {
            EventValidator.validate(event);
            int size = canonicalSize >= 0 ? canonicalSize : Rfc8785.canonicalize(event).length;
            EventValidator.checkCanonicalSize(size + (EventLimits.MAX_CANONICAL_BYTES - MAX_EVENT_BYTES));
            return event;
        } catch (EventRejection e) {
            return refused(event, RULES_REFUSE + e.getMessage());
        }
    }

    /**
     * A copy of {@code event} with its input, output and metadata each replaced by a summary: the reason,
     * the size and the SHA-256 of the JSON that was left out. The metadata summary keeps
     * {@code proxy_seq}, the event's place in the session; an event without metadata gets one holding
     * the reason, which marks it as a summary.
     */
    public static ObjectNode refused(ObjectNode event, String reason) {
        ObjectNode copy = event.deepCopy();
        JsonNode seq = event.path(EventFields.METADATA).get(PROXY_SEQ);
        for (String field : SUMMARISED) {
            JsonNode value = copy.get(field);
            if (value != null) {
                byte[] bytes;
                try {
                    bytes = PLAIN.writeValueAsBytes(value);
                } catch (IOException e) {
                    bytes = new byte[0];
                }
                ObjectNode summary = copy.putObject(field);
                summary.put("omitted", reason);
                summary.put("json_bytes", bytes.length);
                summary.put("json_sha256", sha256(bytes));
            }
        }
        ObjectNode metadata = copy.has(EventFields.METADATA) ? (ObjectNode) copy.get(EventFields.METADATA)
                : copy.putObject(EventFields.METADATA).put("omitted", reason);
        if (seq != null && seq.canConvertToLong()) {
            metadata.put(PROXY_SEQ, seq.asLong());
        }
        return copy;
    }

    /** Whether {@code event} is already a summary made by {@link #refused} (a second refusal is reported, not retried). */
    public static boolean isRefusedSummary(JsonNode event) {
        for (String field : SUMMARISED) {
            String omitted = event.path(field).path("omitted").asText("");
            if (omitted.startsWith(SERVICE_REFUSED) || omitted.startsWith(RULES_REFUSE)) {
                return true;
            }
        }
        return false;
    }

    /** A string field cut to {@code max} UTF-16 code units, never inside a surrogate pair. */
    public static String clip(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        int end = max;
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--;
        }
        return text.substring(0, end);
    }

    /** Nesting depth of a value: a scalar is 0, an object or array is 1 plus its deepest member. */
    public static int depth(JsonNode root) {
        // Iterative, level by level: a hostile message may nest very deeply.
        int depth = 0;
        List<JsonNode> level = List.of(root);
        while (!level.isEmpty()) {
            List<JsonNode> next = new ArrayList<>();
            boolean container = false;
            for (JsonNode n : level) {
                if (n.isContainerNode()) {
                    container = true;
                    n.forEach(next::add);
                }
            }
            if (!container) {
                break;
            }
            depth++;
            level = next;
        }
        return depth;
    }

    public static String sha256(byte[] bytes) {
        try {
            return HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
