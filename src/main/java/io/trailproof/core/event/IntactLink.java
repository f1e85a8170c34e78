package io.trailproof.core.event;

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
                if (m.nameIs(HASH)) {
                    if (!m.hashValueInto(hash)) {
                        return false;
                    }
                    hashed = true;
                    cutHere = true;
                } else if (m.nameIs(LOG_INDEX)) {
                    long v = m.integerValue();
                    index = v >= 0 ? v : -1;
                    cutHere = true;
                } else if (m.nameIs(PREV_HASH)) {
                    if (!m.hashValueInto(prevHash)) {
                        return false;
                    }
                    prev = true;
                } else if (m.nameIs(ID)) {
                    id = m.kind() == MemberScanner.Kind.STRING;
                } else if (m.nameIs(AGENT_ID)) {
                    agent = m.kind() == MemberScanner.Kind.STRING;
                    agentMatches = m.stringValueIs(agentId);
                } else if (m.nameIs(RECORDED_AT)) {
                    recordedAt = m.kind() == MemberScanner.Kind.STRING;
                } else if (m.nameIs(SEQUENCE)) {
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
