package io.trailproof.core.event;

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
 * <p>This reads the payload once with a {@link MemberScanner} and builds nothing. When it answers empty
 * (any doubt: a mismatch, a layout it does not expect, bytes that are not JSON), the caller falls
 * back to {@link StoredEvent#parse} and {@link StoredEvent#recomputeHash}, which decide and explain.
 */
public record IntactEvent(String id, String agentId, long sequence, String prevHash, String hash, long logIndex,
                          String recordedAt) {

    /**
     * Receives, during {@link #check(byte[], OtherMembers)}, each top-level member the check does not
     * read itself, with the scanner on that member; it may read the member's value, and must not move
     * the scanner.
     */
    @FunctionalInterface
    public interface OtherMembers {
        void member(MemberScanner member);
    }

    private static final OtherMembers SKIP = member -> { };

    /** The event's facts when its bytes hash to its stored {@code hash}; empty when that is not shown. */
    public static Optional<IntactEvent> check(byte[] payload) {
        return check(payload, SKIP);
    }

    /**
     * {@link #check(byte[])} that also hands every other top-level member to {@code others}, so that a
     * caller needing more of the event (a policy check) reads it in the same pass. When the answer is
     * empty, {@code others} may have seen only some members.
     */
    public static Optional<IntactEvent> check(byte[] payload, OtherMembers others) {
        return check(payload, others, EventHash.newDigest());
    }

    /**
     * {@link #check(byte[])} with a SHA-256 digest the caller keeps for a walk over many events
     * (looking one up costs about as much as hashing an event); reset before it is used.
     */
    public static Optional<IntactEvent> check(byte[] payload, MessageDigest sha) {
        return check(payload, SKIP, sha);
    }

    private static Optional<IntactEvent> check(byte[] payload, OtherMembers others, MessageDigest sha) {
        sha.reset();
        try {
            MemberScanner m = new MemberScanner(payload);
            String id = null;
            String agentId = null;
            String prevHash = null;
            String hash = null;
            String recordedAt = null;
            long sequence = -1;
            long logIndex = -1;
            int[] cut = new int[4]; // [hashStart, hashEnd, logIndexStart, logIndexEnd]
            int cuts = 0;
            while (m.next()) {
                boolean cutHere = false;
                if (m.nameIs(HASH)) {
                    if (!m.isHashValue()) {
                        return Optional.empty();
                    }
                    hash = m.stringValue();
                    cutHere = true;
                } else if (m.nameIs(LOG_INDEX)) {
                    logIndex = counter(m);
                    cutHere = true;
                } else if (m.nameIs(PREV_HASH)) {
                    if (!m.isHashValue()) {
                        return Optional.empty();
                    }
                    prevHash = m.stringValue();
                } else if (m.nameIs(ID)) {
                    id = m.stringValue();
                } else if (m.nameIs(AGENT_ID)) {
                    agentId = m.stringValue();
                } else if (m.nameIs(RECORDED_AT)) {
                    recordedAt = m.stringValue();
                } else if (m.nameIs(SEQUENCE)) {
                    sequence = counter(m);
                } else {
                    others.member(m);
                }
                if (cutHere) {
                    // Each cut member is followed by its comma: "hash":"...", (last is not the layout RFC 8785 gives)
                    if (cuts == 4 || m.after() != ',') {
                        return Optional.empty();
                    }
                    cut[cuts++] = m.memberStart();
                    cut[cuts++] = m.valueEnd() + 1;
                }
            }
            if (cuts != 4 || id == null || agentId == null || prevHash == null || hash == null || recordedAt == null
                    || sequence < 1 || logIndex < 0) {
                return Optional.empty();
            }
            int from = 0;
            for (int i = 0; i < 4; i += 2) {
                sha.update(payload, from, cut[i] - from);
                from = cut[i + 1];
            }
            sha.update(payload, from, payload.length - from);
            if (!MessageDigest.isEqual(sha.digest(), HexFormat.of().parseHex(hash))) {
                return Optional.empty();
            }
            return Optional.of(new IntactEvent(id, agentId, sequence, prevHash, hash, logIndex, recordedAt));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The stored hash as 32 raw bytes (the RFC 9162 leaf of this event). */
    public byte[] hashBytes() {
        return HexFormat.of().parseHex(hash);
    }

    /** A sequence or log index: a plain non-negative integer, else -1. */
    private static long counter(MemberScanner m) {
        long v = m.integerValue();
        return v >= 0 ? v : -1;
    }
}
