package io.trailproof.ledger;

import java.time.Instant;
import java.util.Arrays;

/**
 * What the ledger knows about one agent's chain: its head, where its events are in the log, and the
 * outcome of the latest re-verification. Derived from the log (checkpointed, caught up on start).
 * Thread-safe: the sequencer appends while readers and the verifier take snapshots.
 */
final class AgentState {

    private final String agentId;
    private long headSequence;
    private String headHash;
    private String lastRecordedAt;
    private long[] positions = new long[4];
    private int count;
    private Boolean chainValid;
    private Instant verifiedAt;
    private String verifyError;

    AgentState(String agentId) {
        this.agentId = agentId;
    }

    String agentId() {
        return agentId;
    }

    synchronized void add(long position, long sequence, String hash, String recordedAt) {
        if (count == positions.length) {
            positions = Arrays.copyOf(positions, count * 2);
        }
        positions[count++] = position;
        headSequence = sequence;
        headHash = hash;
        lastRecordedAt = recordedAt;
    }

    synchronized void restore(long[] restoredPositions, long sequence, String hash, String recordedAt) {
        positions = restoredPositions.length == 0 ? new long[4] : restoredPositions.clone();
        count = restoredPositions.length;
        headSequence = sequence;
        headHash = hash;
        lastRecordedAt = recordedAt;
    }

    synchronized Checkpoint.Agent checkpoint() {
        return new Checkpoint.Agent(agentId, headSequence, headHash, lastRecordedAt, Arrays.copyOf(positions, count));
    }

    synchronized Head head() {
        return new Head(headSequence, headHash);
    }

    /** Positions in the log of this agent's events below {@code logEnd}, in log order. */
    synchronized long[] positionsBelow(long logEnd) {
        int n = count;
        while (n > 0 && positions[n - 1] >= logEnd) {
            n--;
        }
        return Arrays.copyOf(positions, n);
    }

    /** Number of this agent's events below {@code logEnd}. */
    synchronized int countBelow(long logEnd) {
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

    synchronized Summary summary(long logEnd) {
        int n = count;
        while (n > 0 && positions[n - 1] >= logEnd) {
            n--;
        }
        return new Summary(agentId, n, lastRecordedAt, chainValid, headSequence, headHash, verifiedAt, verifyError);
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

    /** A consistent copy for {@code GET /v1/agents}. */
    record Summary(String agentId, long eventCount, String lastActivity, Boolean chainValid, long headSequence,
                   String headHash, Instant verifiedAt, String verifyError) {
    }
}
