package io.trailproof.core.event;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;

import static io.trailproof.core.event.EventFields.*;

/**
 * {@link IntactEvent#check} for a walk along a chain: the same bytes are accepted, by the same
 * rules, and the same hash is recomputed over them, but what a link needs (the agent, the
 * sequence, the {@code prev_hash}, the {@code hash}, the {@code log_index}) is kept as numbers and
 * raw hash bytes instead of strings: a chain verification compares them and builds nothing per
 * event. One instance serves a whole walk (single-threaded); each {@link #read} replaces what the
 * previous one found.
 *
 * <p>When {@link #read} answers false, nothing is decided: the caller falls back to
 * {@link IntactEvent#check} and the full parse, which decide and explain.
 */
public final class IntactLink {

    private final MessageDigest sha;
    private final byte[] hash = new byte[EventHash.LENGTH];
    private final byte[] prevHash = new byte[EventHash.LENGTH];
    private final byte[] scratch = new byte[EventHash.LENGTH];
    private final String agentId;
    private final int[] cut = new int[4];
    private boolean agentMatches;
    private long sequence;
    private long logIndex;

    /**
     * @param agentId the chain's agent, which {@link #agentMatches()} compares each event's with
     * @param sha     a SHA-256 digest kept for the walk; reset before each use
     */
    public IntactLink(String agentId, MessageDigest sha) {
        this.agentId = agentId;
        this.sha = sha;
    }

    /**
     * True when {@code payload} is intact as {@link IntactEvent#check} shows it (its bytes, with the
     * {@code hash} and {@code log_index} members cut out, hash to its {@code hash}, every byte checked by
     * the {@link MemberScanner}, and it has an {@code id}, a {@code recorded_at}, an {@code agent_id},
     * a {@code prev_hash}, a {@code sequence} of at least 1 and a {@code log_index}); the accessors then
     * answer for it. False when that is not shown.
     */
    public boolean read(byte[] payload) {
        sha.reset();
        try {
            MemberScanner m = new MemberScanner(payload);
            boolean id = false;
            boolean agent = false;
            boolean prev = false;
            boolean hashed = false;
            boolean recordedAt = false;
            long seq = -1;
            long index = -1;
            int cuts = 0;
            while (m.next()) {
                boolean cutHere = false;
                int field = field(m);
                if (field == NONE) {
                    continue;
                }
                if (field == F_HASH) {
                    if (!m.hashValueInto(hash)) {
                        return false;
                    }
                    hashed = true;
                    cutHere = true;
                } else if (field == F_LOG_INDEX) {
                    long v = m.integerValue();
                    index = v >= 0 ? v : -1;
                    cutHere = true;
                } else if (field == F_PREV_HASH) {
                    if (!m.hashValueInto(prevHash)) {
                        return false;
                    }
                    prev = true;
                } else if (field == F_ID) {
                    id = m.kind() == MemberScanner.Kind.STRING;
                } else if (field == F_AGENT_ID) {
                    agent = m.kind() == MemberScanner.Kind.STRING;
                    agentMatches = m.stringValueIs(agentId);
                } else if (field == F_RECORDED_AT) {
                    recordedAt = m.kind() == MemberScanner.Kind.STRING;
                } else if (field == F_SEQUENCE) {
                    long v = m.integerValue();
                    seq = v >= 0 ? v : -1;
                }
                if (cutHere) {
                    // Each cut member is followed by its comma, as in IntactEvent.check.
                    if (cuts == 4 || m.after() != ',') {
                        return false;
                    }
                    cut[cuts++] = m.memberStart();
                    cut[cuts++] = m.valueEnd() + 1;
                }
            }
            if (cuts != 4 || !id || !agent || !prev || !hashed || !recordedAt || seq < 1 || index < 0) {
                return false;
            }
            int from = 0;
            for (int i = 0; i < 4; i += 2) {
                sha.update(payload, from, cut[i] - from);
                from = cut[i + 1];
            }
            sha.update(payload, from, payload.length - from);
            sha.digest(scratch, 0, scratch.length);
            if (!MessageDigest.isEqual(scratch, hash)) {
                return false;
            }
            sequence = seq;
            logIndex = index;
            return true;
        } catch (RuntimeException | DigestException e) {
            return false;
        }
    }

    private static final int NONE = 0;
    private static final int F_HASH = 1;
    private static final int F_LOG_INDEX = 2;
    private static final int F_PREV_HASH = 3;
    private static final int F_ID = 4;
    private static final int F_AGENT_ID = 5;
    private static final int F_RECORDED_AT = 6;
    private static final int F_SEQUENCE = 7;
    private static final byte[] HASH_NAME = ascii(HASH);
    private static final byte[] LOG_INDEX_NAME = ascii(LOG_INDEX);
    private static final byte[] PREV_HASH_NAME = ascii(PREV_HASH);
    private static final byte[] ID_NAME = ascii(ID);
    private static final byte[] AGENT_ID_NAME = ascii(AGENT_ID);
    private static final byte[] RECORDED_AT_NAME = ascii(RECORDED_AT);
    private static final byte[] SEQUENCE_NAME = ascii(SEQUENCE);

    /**
     * Which of the members a link needs the current one is, or {@link #NONE}: the name's length and
     * first byte pick the one candidate, whose bytes are then compared (most members are none, and
     * cost a switch). An escaped name is compared decoded, as {@link IntactEvent#check} reads it.
     */
    private static int field(MemberScanner m) {
        int n = m.nameLength();
        if (n < 0) {
            return m.nameIs(HASH) ? F_HASH : m.nameIs(LOG_INDEX) ? F_LOG_INDEX : m.nameIs(PREV_HASH) ? F_PREV_HASH
                    : m.nameIs(ID) ? F_ID : m.nameIs(AGENT_ID) ? F_AGENT_ID : m.nameIs(RECORDED_AT) ? F_RECORDED_AT
                    : m.nameIs(SEQUENCE) ? F_SEQUENCE : NONE;
        }
        byte first = n == 0 ? 0 : m.nameByte(0);
        return switch (n) {
            case 2 -> m.nameIs(ID_NAME) ? F_ID : NONE;
            case 4 -> m.nameIs(HASH_NAME) ? F_HASH : NONE;
            case 8 -> first == 'a' ? (m.nameIs(AGENT_ID_NAME) ? F_AGENT_ID : NONE)
                    : first == 's' && m.nameIs(SEQUENCE_NAME) ? F_SEQUENCE : NONE;
            case 9 -> first == 'l' ? (m.nameIs(LOG_INDEX_NAME) ? F_LOG_INDEX : NONE)
                    : first == 'p' && m.nameIs(PREV_HASH_NAME) ? F_PREV_HASH : NONE;
            case 11 -> m.nameIs(RECORDED_AT_NAME) ? F_RECORDED_AT : NONE;
            default -> NONE;
        };
    }

    private static byte[] ascii(String name) {
        return name.getBytes(StandardCharsets.US_ASCII);
    }

    /** Whether the event's {@code agent_id} is the chain's agent. */
    public boolean agentMatches() {
        return agentMatches;
    }

    public long sequence() {
        return sequence;
    }

    public long logIndex() {
        return logIndex;
    }

    /** The event's {@code hash}, 32 bytes; the array is reused by the next {@link #read}. */
    public byte[] hash() {
        return hash;
    }

    /** The event's {@code prev_hash}, 32 bytes; the array is reused by the next {@link #read}. */
    public byte[] prevHash() {
        return prevHash;
    }
}
