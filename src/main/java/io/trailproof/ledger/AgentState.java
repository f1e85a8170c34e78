package io.trailproof.ledger;

import java.time.Instant;
import java.util.Arrays;

/**
 * What the ledger knows about one agent's chain: its head, where its events are in the log, and the
 * outcome of the latest re-verification. Derived from the log (snapshotted, caught up on start).
 * Thread-safe: the sequencer appends while readers and the verifier take snapshots.
 *
 * <p>{@link #ordinal()} numbers agents in the order the ledger first met them; the snapshot's
 * position journal names agents by it.
 */
final class AgentState {

    private final String agentId;
    private final int ordinal;
    private long headSequence;
    private String headHash;
    private String lastRecordedAt;
    private long[] positions = new long[4];
    private int count;
    private Boolean chainValid;
    private Instant verifiedAt;
    private String verifyError;

    AgentState(String agentId, int ordinal) {
        this.agentId = agentId;
        this.ordinal = ordinal;
    }

    String agentId() {
        return agentId;
    }

    int ordinal() {
        return ordinal;
    }

    synchronized void add(long position, long sequence, String hash, String recordedAt) {
        addPosition(position);
        headSequence = sequence;
        headHash = hash;
        lastRecordedAt = recordedAt;
    }

    /** Restoring from the snapshot: positions first, in log order, then {@link #restoreHead}. */
    synchronized void addPosition(long position) {
        if (count == positions.length) {
            positions = Arrays.copyOf(positions, count * 2);
        }
        positions[count++] = position;
    }

    /**
     * Restoring from the snapshot: {@code n} positions of {@code from} starting at {@code offset}, in
     * log order, after those restored so far; {@code expected} is how many the agent will have in
     * all (its count in the snapshot), so the array is allocated once.
     */
    synchronized void addPositions(long[] from, int offset, int n, int expected) {
        if (count + n > positions.length) {
            positions = Arrays.copyOf(positions, Math.max(count + n, Math.max(expected, count * 2)));
        }
        System.arraycopy(from, offset, positions, count, n);
        count += n;
    }

    synchronized void restoreHead(long sequence, String hash, String recordedAt) {
        headSequence = sequence;
        headHash = hash;
        lastRecordedAt = recordedAt;
    }

    synchronized HeadSnapshot.Head snapshotHead() {
        return new HeadSnapshot.Head(agentId, headSequence, headHash, lastRecordedAt, count);
    }

    synchronized Head head() {
        return new Head(headSequence, headHash);
    }

    /** Positions in the log of this agent's events below {@code logEnd}, in log order. */
    synchronized long[] positionsBelow(long logEnd) {
        return Arrays.copyOf(positions, countBelowLocked(logEnd));
    }

    /** Number of this agent's events below {@code logEnd}. */
    synchronized int countBelow(long logEnd) {
        return countBelowLocked(logEnd);
    }

    private int countBelowLocked(long logEnd) {
        int n = count;
        while (n > 0 && positions[n - 1] >= logEnd) {
            n--;
        }
        return n;
    }

    /** The log positions of the agent's events at ordinals {@code [from, to)}, below {@link #countBelow}. */
    synchronized long[] positions(int from, int to) {
        if (from < 0 || from > to || to > count) {
            throw new IndexOutOfBoundsException("agent " + agentId + " has no events at ordinals " + from + ".." + to);
        }
        return Arrays.copyOfRange(positions, from, to);
    }

    /** The log position of the agent's event at {@code ordinal} (0 for sequence 1), below {@link #countBelow}. */
    synchronized long positionAt(int ordinal) {
        if (ordinal < 0 || ordinal >= count) {
            throw new IndexOutOfBoundsException("agent " + agentId + " has no event at ordinal " + ordinal);
        }
        return positions[ordinal];
    }

    /**
     * A consistent copy limited to the events below {@code logEnd}. When the agent has later events
     * (sequenced, not yet readable), the head fields are those of the newest sequenced event and
     * {@link Summary#headIsNewest()} is false: the caller reads the head at {@link Summary#lastPosition()}.
     */
    synchronized Summary summary(long logEnd) {
        int n = countBelowLocked(logEnd);
        return new Summary(agentId, n, n == 0 ? -1 : positions[n - 1], n == count, lastRecordedAt, chainValid,
                headSequence, headHash, verifiedAt, verifyError);
    }

    synchronized void recordVerification(boolean valid, String error, Instant at) {
        chainValid = valid;
        verifyError = error;
        verifiedAt = at;
    }

    synchronized String lastRecordedAt() {
        return lastRecordedAt;
    }

    /** The chain's head: the last sequenced event's sequence and hash. */
    record Head(long sequence, String hash) {
    }

    /** See {@link #summary}. */
    record Summary(String agentId, long eventCount, long lastPosition, boolean headIsNewest, String lastActivity,
                   Boolean chainValid, long headSequence, String headHash, Instant verifiedAt, String verifyError) {
    }
}
