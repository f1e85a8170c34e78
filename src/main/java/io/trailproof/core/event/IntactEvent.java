package io.trailproof.core.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;

import static io.trailproof.core.event.EventFields.*;

/**
 * The fast way to check a stored event: its payload is kept in RFC 8785 form, so the payload with
 * the {@code hash} and {@code log_index} members cut out is exactly the text that was hashed. If
 * SHA-256 over those bytes equals the stored {@code hash}, the event is intact (by the collision
 * resistance of SHA-256, these are the very bytes that were hashed, so they hold no duplicate keys,
 * no other layout and no other values), and the fields read here are the ones the hash covers.
 *
 * <p>This reads the payload once with a streaming parser and builds no tree. When it answers empty
 * (any doubt: a mismatch, a layout it does not expect, bytes that are not JSON), the caller falls
 * back to {@link StoredEvent#parse} and {@link StoredEvent#recomputeHash}, which decide and explain.
 */
public record IntactEvent(String id, String agentId, long sequence, String prevHash, String hash, long logIndex,
                          String recordedAt) {

    private static final JsonFactory JSON = new JsonFactory();

    /**
     * Receives, during {@link #check(byte[], OtherMembers)}, each top-level member the check does not
     * read itself, with the parser on the member's first value token; it must consume exactly that value.
     */
    @FunctionalInterface
    public interface OtherMembers {
        void member(String name, JsonParser parser, JsonToken value) throws java.io.IOException;
    }

    private static final OtherMembers SKIP = (name, p, value) -> p.skipChildren();

    /** The event's facts when its bytes hash to its stored {@code hash}; empty when that is not shown. */
    public static Optional<IntactEvent> check(byte[] payload) {
        return check(payload, SKIP);
    }

    /**
     * {@link #check(byte[])} that also hands every other top-level member to {@code others}, so that a
     * caller needing more of the event (a policy check) reads it in the same parse. When the answer is
     * empty, {@code others} may have seen only some members.
     */
    public static Optional<IntactEvent> check(byte[] payload, OtherMembers others) {
        try (JsonParser p = JSON.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Optional.empty();
            }
            String id = null;
            String agentId = null;
            String prevHash = null;
            String hash = null;
            String recordedAt = null;
            long sequence = -1;
            long logIndex = -1;
            long[] cut = new long[4]; // [hashStart, hashEnd, logIndexStart, logIndexEnd]
            int cuts = 0;
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                long start = p.currentTokenLocation().getByteOffset();
                JsonToken value = p.nextToken();
                switch (name) {
                    case ID -> id = text(p, value);
                    case AGENT_ID -> agentId = text(p, value);
                    case PREV_HASH -> prevHash = text(p, value);
                    case RECORDED_AT -> recordedAt = text(p, value);
                    case HASH -> hash = text(p, value);
                    case SEQUENCE -> sequence = counter(p, value);
                    case LOG_INDEX -> logIndex = counter(p, value);
                    default -> others.member(name, p, value);
                }
                if (name.equals(HASH) || name.equals(LOG_INDEX)) {
                    if (cuts == 4) {
                        return Optional.empty();
                    }
                    cut[cuts++] = start;
                    cut[cuts++] = -1; // the member ends where the next token starts
                } else if (cuts > 0 && cut[cuts - 1] == -1) {
                    cut[cuts - 1] = start;
                }
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                return Optional.empty();
            }
            if (cuts > 0 && cut[cuts - 1] == -1) {
                return Optional.empty(); // hash or log_index last: not the layout RFC 8785 gives these fields
            }
            if (cuts != 4 || id == null || agentId == null || prevHash == null || hash == null || recordedAt == null
                    || sequence < 1 || logIndex < 0 || !EventHash.isHex(hash) || !EventHash.isHex(prevHash)) {
                return Optional.empty();
            }
            // Each cut member is followed by its comma: "hash":"...",
            MessageDigest sha = EventHash.newDigest();
            int from = 0;
            for (int i = 0; i < 4; i += 2) {
                sha.update(payload, from, (int) cut[i] - from);
                from = (int) cut[i + 1];
            }
            sha.update(payload, from, payload.length - from);
            if (!MessageDigest.isEqual(sha.digest(), HexFormat.of().parseHex(hash))) {
                return Optional.empty();
            }
            return Optional.of(new IntactEvent(id, agentId, sequence, prevHash, hash, logIndex, recordedAt));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** The stored hash as 32 raw bytes (the RFC 9162 leaf of this event). */
    public byte[] hashBytes() {
        return HexFormat.of().parseHex(hash);
    }

    private static String text(JsonParser p, JsonToken value) throws java.io.IOException {
        return value == JsonToken.VALUE_STRING ? p.getText() : null;
    }

    private static long counter(JsonParser p, JsonToken value) throws java.io.IOException {
        return value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER
                ? p.getLongValue() : -1;
    }
}
