package io.trailproof.core.event;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Removes an event's content and keeps its proof (src/site/erasure.md#erased-event): the integrity
 * fields stay as they were, the fields named are removed, and an {@code erased} member records
 * which erasure did it, when, and which fields it named. The {@code hash} is not recomputed: it is
 * the hash of the content as it was, and every root, proof and package made from it stays valid.
 */
public final class EventErasure {

    /**
     * The fields an erasure may name, in the order of src/site/events.md#accepted-fields: every
     * client field but {@code agent_id}. The default when a request names none.
     */
    public static final List<String> ERASABLE = List.of(SESSION_ID, SOURCE, CAPTURE_METHOD, ACTION_TYPE,
            ACTION_NAME, ACTION_STATUS, ERROR_MESSAGE, ACTION_INPUT, ACTION_OUTPUT, METADATA, TIMESTAMP,
            DURATION_MS, LABELS);
    private static final Set<String> ERASABLE_SET = Set.copyOf(ERASABLE);

    private EventErasure() {
    }

    /** Whether {@code field} may be named by an erasure. */
    public static boolean erasable(String field) {
        return ERASABLE_SET.contains(field);
    }

    /** {@code fields} in the order of {@link #ERASABLE}, each once. */
    public static List<String> ordered(List<String> fields) {
        List<String> out = new ArrayList<>();
        for (String f : ERASABLE) {
            if (fields.contains(f)) {
                out.add(f);
            }
        }
        return out;
    }

    /**
     * The erased form of a stored event's payload: the same RFC 8785 object without the fields
     * named, plus {@code "erased": {"erasure_id", "at", "fields"}}.
     *
     * @param payload   the stored event as the log holds it (not yet erased)
     * @param erasureId the erasure event's id
     * @param at        the erasure event's {@code recorded_at}
     * @param fields    fields to remove, each {@link #erasable}
     * @throws StoredEventFormatException when the payload is not a stored event, or is already erased
     */
    public static byte[] erase(byte[] payload, String erasureId, String at, List<String> fields)
            throws StoredEventFormatException {
        JsonNode node;
        try {
            node = StrictJson.parse(payload, StoredEvent.PARSE_MAX_DEPTH);
        } catch (JsonRejection e) {
            throw new StoredEventFormatException("stored event is not valid JSON: " + e.getMessage(), e);
        }
        if (!(node instanceof ObjectNode event) || !event.path(HASH).isTextual()) {
            throw new StoredEventFormatException("not a stored event");
        }
        if (event.has(ERASED)) {
            throw new StoredEventFormatException("the event is already erased");
        }
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ArrayNode named = nodes.arrayNode();
        for (String f : ordered(fields)) {
            event.remove(f);
            named.add(f);
        }
        if (named.size() != fields.stream().distinct().count()) {
            throw new IllegalArgumentException("not erasable: " + fields);
        }
        ObjectNode mark = nodes.objectNode();
        mark.put("erasure_id", erasureId);
        mark.put("at", at);
        mark.set("fields", named);
        event.set(ERASED, mark);
        return Rfc8785.canonicalize(event);
    }
}
