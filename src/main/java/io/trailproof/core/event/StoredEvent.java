package io.trailproof.core.event;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NumericNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;

/**
 * One stored event (src/site/events.md#service-assigned-fields): the client's fields plus the service-assigned ones, with its
 * hash (src/site/events.md#event-hash) and its payload, the RFC 8785 bytes of the whole event including {@code hash}
 * and {@code log_index}. The payload is what the log stores and the API returns, byte for byte.
 *
 * <p>Immutable. {@link #payload()} returns the internal array without copying, because it sits on
 * the ingest and read paths: callers must not modify it.
 */
public final class StoredEvent {

    /**
     * Nesting allowed when reading a payload back. A stored event nests exactly as deep as the
     * accepted event (at most {@link EventLimits#MAX_NESTING_DEPTH}); the margin lets verification
     * report a deeper, tampered payload as a hash mismatch instead of unreadable.
     */
    public static final int PARSE_MAX_DEPTH = EventLimits.MAX_NESTING_DEPTH + 2;

    /** Largest sequence and log index: integers JSON readers hold exactly. */
    private static final long MAX_COUNTER = 1L << 53;

    private final ObjectNode json;
    private final byte[] payload;
    private final String id;
    private final String agentId;
    private final long sequence;
    private final String prevHash;
    private final String hash;
    private final long logIndex;
    private final String recordedAt;
    private final String timestamp;
    /** The erasure's id when the event's content was erased (src/site/erasure.md), else null. */
    private final String erasureId;

    private StoredEvent(ObjectNode json, byte[] payload) {
        this.json = json;
        this.payload = payload;
        this.id = json.get(ID).textValue();
        this.agentId = json.get(AGENT_ID).textValue();
        this.sequence = json.get(SEQUENCE).longValue();
        this.prevHash = json.get(PREV_HASH).textValue();
        this.hash = json.get(HASH).textValue();
        this.logIndex = json.get(LOG_INDEX).longValue();
        this.recordedAt = json.get(RECORDED_AT).textValue();
        JsonNode erased = json.get(ERASED);
        this.erasureId = erased == null ? null : erased.path("erasure_id").textValue();
        JsonNode ts = json.get(TIMESTAMP);
        // An erasure may remove the timestamp: the event then sorts and filters by recorded_at.
        this.timestamp = ts != null && ts.isTextual() ? ts.textValue() : this.recordedAt;
    }

    /**
     * Builds, hashes and serializes a stored event.
     *
     * @param clientFields the result of {@link EventValidator#validate}; not modified
     * @param id the event's UUIDv7 ({@link UuidV7})
     * @param recordedAt the sequencing time ({@link EventTime#formatRecordedAt}); also the
     *     {@code timestamp} when the client sent none
     * @param sequence 1 for the agent's first event, then +1
     * @param prevHashHex the agent's previous event hash, or {@link EventFields#GENESIS_PREV_HASH}
     * @param logIndex the event's leaf index in the log
     * @throws EventRejection when the canonical form exceeds {@link EventLimits#MAX_CANONICAL_BYTES}
     */
    public static StoredEvent seal(ObjectNode clientFields, String id, String recordedAt, long sequence,
            String prevHashHex, long logIndex) throws EventRejection {
        return seal(clientFields, id, recordedAt, sequence, prevHashHex, logIndex, 0);
    }

    /**
     * As {@link #seal(ObjectNode, String, String, long, String, long)} for fields that redaction
     * lengthened by {@code sizeAllowance} canonical bytes (src/site/redaction.md): the size limit applies to the
     * event as sent, so the stored form may exceed it by that much.
     */
    public static StoredEvent seal(ObjectNode clientFields, String id, String recordedAt, long sequence,
            String prevHashHex, long logIndex, int sizeAllowance) throws EventRejection {
        if (clientFields == null || !clientFields.path(AGENT_ID).isTextual()) {
            throw new IllegalArgumentException("client fields must be a validated event with agent_id");
        }
        for (String assigned : new String[] {ID, SCHEMA_VERSION, SEQUENCE, PREV_HASH, RECORDED_AT, LOG_INDEX, HASH}) {
            if (clientFields.has(assigned)) {
                throw new IllegalArgumentException("client fields must not contain service field " + assigned);
            }
        }
        if (id == null || recordedAt == null) {
            throw new IllegalArgumentException("id and recordedAt are required");
        }
        if (sequence < 1 || sequence > MAX_COUNTER || logIndex < 0 || logIndex > MAX_COUNTER) {
            throw new IllegalArgumentException("sequence must be 1..2^53 and logIndex 0..2^53");
        }
        if (!EventHash.isHex(prevHashHex)) {
            throw new IllegalArgumentException("prevHashHex must be 64 lowercase hex digits");
        }

        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ObjectNode event = nodes.objectNode();
        event.setAll(clientFields);
        event.put(ID, id);
        event.put(SCHEMA_VERSION, SCHEMA_VERSION_1_0);
        event.put(SEQUENCE, sequence);
        event.put(PREV_HASH, prevHashHex);
        event.put(RECORDED_AT, recordedAt);
        if (!event.path(TIMESTAMP).isTextual()) {
            event.put(TIMESTAMP, recordedAt);
        }
        // The payload is the covered form with two more members: written once, then spliced.
        Rfc8785.CanonicalObject covered = Rfc8785.canonicalObject(event);
        String hashHex = EventHash.toHex(EventHash.sha256(covered.bytes()));
        TextNode hashNode = nodes.textNode(hashHex);
        NumericNode indexNode = nodes.numberNode(logIndex);
        byte[] payload = covered.with(HASH, hashNode, LOG_INDEX, indexNode);
        event.set(HASH, hashNode);
        event.set(LOG_INDEX, indexNode);
        EventValidator.checkCanonicalSize(payload.length - Math.max(0, sizeAllowance));
        return new StoredEvent(event, payload);
    }

    /**
     * Reads a payload back from the log without trusting it: the hash is taken as stored, and only
     * {@link #recomputeHash()} says whether it still matches. Takes ownership of {@code payload}.
     *
     * @throws StoredEventFormatException when the bytes are not strict JSON or a service-assigned
     *     field is missing or of the wrong type
     */
    public static StoredEvent parse(byte[] payload) throws StoredEventFormatException {
        JsonNode node;
        try {
            node = StrictJson.parse(payload, PARSE_MAX_DEPTH);
        } catch (JsonRejection e) {
            throw new StoredEventFormatException("stored event is not valid JSON: " + e.getMessage(), e);
        }
        if (!node.isObject()) {
            throw new StoredEventFormatException("stored event is not a JSON object");
        }
        ObjectNode json = (ObjectNode) node;
        for (String field : new String[] {ID, AGENT_ID, SCHEMA_VERSION, RECORDED_AT}) {
            requireText(json, field);
        }
        JsonNode erased = json.get(ERASED);
        if (erased != null) {
            if (!erased.isObject() || !erased.path("erasure_id").isTextual() || !erased.path("at").isTextual()
                    || !erased.path("fields").isArray()) {
                throw new StoredEventFormatException("stored event field " + ERASED
                        + " is not {\"erasure_id\", \"at\", \"fields\"}");
            }
            if (json.has(TIMESTAMP)) {
                requireText(json, TIMESTAMP);
            }
        } else {
            requireText(json, TIMESTAMP);
        }
        requireCounter(json, SEQUENCE, 1);
        requireCounter(json, LOG_INDEX, 0);
        for (String field : new String[] {PREV_HASH, HASH}) {
            if (!EventHash.isHex(requireText(json, field))) {
                throw new StoredEventFormatException("stored event field " + field
                        + " is not 64 lowercase hex digits");
            }
        }
        return new StoredEvent(json, payload);
    }

    private static String requireText(ObjectNode json, String field) throws StoredEventFormatException {
        JsonNode v = json.get(field);
        if (v == null || !v.isTextual()) {
            throw new StoredEventFormatException("stored event field " + field + " is missing or not a string");
        }
        return v.textValue();
    }

    private static void requireCounter(ObjectNode json, String field, long min) throws StoredEventFormatException {
        JsonNode v = json.get(field);
        // StrictJson holds every integral value within 2^53 as an int or long node.
        if (v == null || !(v.isInt() || v.isLong()) || v.longValue() < min) {
            throw new StoredEventFormatException("stored event field " + field + " is missing or not an integer >= "
                    + min + " and <= 2^53");
        }
    }

    /**
     * SHA-256 over the canonical form of this event without {@code hash} and {@code log_index}, as
     * the fields stand now. Differs from {@link #hashBytes()} when the stored bytes were altered.
     */
    public byte[] recomputeHash() {
        return EventHash.of(json);
    }

    public String id() {
        return id;
    }

    public String agentId() {
        return agentId;
    }

    public long sequence() {
        return sequence;
    }

    /** {@code prev_hash} in lowercase hex. */
    public String prevHash() {
        return prevHash;
    }

    /** {@code hash} in lowercase hex, as sealed or as stored. */
    public String hash() {
        return hash;
    }

    /** The 32 raw bytes of {@link #hash()}: the event's Merkle leaf (src/site/concepts.md#the-merkle-tree). */
    public byte[] hashBytes() {
        return EventHash.fromHex(hash);
    }

    public long logIndex() {
        return logIndex;
    }

    public String recordedAt() {
        return recordedAt;
    }

    /** The client's {@code timestamp} exactly as sent, or {@link #recordedAt()} when it sent none. */
    public String timestamp() {
        return timestamp;
    }

    /** Whether the event's content was erased (src/site/erasure.md): its hash can then not be recomputed. */
    public boolean erased() {
        return erasureId != null;
    }

    /** The id of the erasure that removed this event's content, or null when it was not erased. */
    public String erasureId() {
        return erasureId;
    }

    /** The RFC 8785 bytes of the full stored event; the internal array, which must not be modified. */
    public byte[] payload() {
        return payload;
    }

    /** The full stored event as a tree; a deep copy, so changing it does not change this event. */
    public ObjectNode json() {
        return json.deepCopy();
    }

    @Override
    public String toString() {
        return "StoredEvent[" + agentId + " #" + sequence + " " + id + "]";
    }
}
