package io.trailproof.ledger;

import io.trailproof.store.PackedPositions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;

/**
 * What the ledger knows about one agent's chain: its head, where its events are in the log, and the
 * outcome of the latest re-verification. Derived from the log (snapshotted, caught up on start).
 * Thread-safe: the sequencer appends while readers and the verifier take snapshots.
 *
 * <p>{@link #ordinal()} numbers agents in the order the ledger first met them; the snapshot's
 * position journal names agents by it.
 *
 * <p><b>Positions loaded after the start.</b> An agent restored from a chain-head snapshot
 * ({@link #restored}) knows its head, its event count and where its last snapshotted event is, but
 * not yet where its earlier events are: those come from the position journal, read after the start
 * ({@link PositionLoad}). Meanwhile the sequencer appends as always, counts and summaries are
 * answered at once, and a read of the positions the journal holds waits for the load, outside this
 * object's lock, so that appends never wait for it.
 *
 * <p>The positions are held packed ({@link PackedPositions}): with agents interleaved in the log, the
 * gap between two of one agent's events is small, and a position costs about 2.5 bytes of heap
 * instead of 8 (and up to 16 with an array's growth slack).
 */
final class AgentState {

    private final String agentId;
    private final int ordinal;
    private long headSequence;
    private String headHash;
    private String lastRecordedAt;
    /** How many leading positions are still to come from the journal (0 once loaded). */
    private int unloaded;
    /** The position of the event at ordinal {@code unloaded - 1} (while {@code unloaded > 0}). */
    private long lastUnloaded = -1;
    /** The positions of the events at ordinals {@code [unloaded, count)}. */
    private PackedPositions positions = new PackedPositions();
    private int count;
    /** Where the positions to come are loaded; null when none are to come. */
    private final PositionLoad load;
    private Boolean chainValid;
    private Instant verifiedAt;
    private String verifyError;

    AgentState(String agentId, int ordinal) {
        this(agentId, ordinal, null);
    }

    private AgentState(String agentId, int ordinal, PositionLoad load) {
        this.agentId = agentId;
        this.ordinal = ordinal;
        this.load = load;
    }

    /**
     * Restoring from the snapshot without the journal: the head and {@code count} events, the last at
     * {@code lastPosition}, whose positions {@code load} brings later ({@link #loadPositions}).
     */
    static AgentState restored(HeadSnapshot.Head head, int ordinal, PositionLoad load) {
        AgentState a = new AgentState(head.agentId(), ordinal, load);
        a.unloaded = head.eventCount();
        a.count = head.eventCount();
        a.lastUnloaded = head.lastPosition();
        a.restoreHead(head.headSequence(), head.headHash(), head.lastRecordedAt());
        return a;
    }

    /** How many of its events' positions are still to be loaded. */
    synchronized int unloaded() {
        return unloaded;
    }

    /**
     * The positions still to be loaded, in log order: they go before those appended since the start.
     * When there are not as many as the snapshot counted (the journal was rebuilt from a log that
     * disagrees with the snapshot, a problem the loader reports), the count follows what was loaded.
     */
    synchronized void loadPositions(PackedPositions loaded) {
        if (unloaded == 0) {
            return;
        }
        int tail = count - unloaded;
        loaded.addAll(positions.toArray(0, tail), 0, tail);
        positions = loaded;
        count = loaded.size();
        unloaded = 0;
        lastUnloaded = -1;
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
        positions.add(position);
        count++;
    }

    /**
     * Restoring from the snapshot: {@code n} positions of {@code from} starting at {@code offset}, in
     * log order, after those restored so far.
     */
    synchronized void addPositions(long[] from, int offset, int n) {
        if (unloaded != 0) {
            throw new IllegalStateException("agent " + agentId + " is restored from the snapshot already");
        }
        positions.addAll(from, offset, n);
        count += n;
    }

    synchronized void restoreHead(long sequence, String hash, String recordedAt) {
        headSequence = sequence;
        headHash = hash;
        lastRecordedAt = recordedAt;
    }

    synchronized HeadSnapshot.Head snapshotHead() {
        return new HeadSnapshot.Head(agentId, headSequence, headHash, lastRecordedAt, count, lastPositionLocked(count));
    }

    /**
     * The snapshot's head with every position of the agent, or the plain head when some are still
     * to be loaded (never waits: the sequencer's lock is held).
     */
    synchronized HeadSnapshot.Head snapshotHeadWithPositions() {
        HeadSnapshot.Head h = snapshotHead();
        return unloaded > 0 ? h : h.withPositions(positions.toArray(0, count));
    }

    /** The position of the event at ordinal {@code n - 1}, or -1 when {@code n} is 0; the lock is held. */
    private long lastPositionLocked(int n) {
        if (n == 0) {
            return -1;
        }
        if (n <= unloaded) {
            return lastUnloaded;
        }
        return n == count ? positions.last() : positions.get(n - 1 - unloaded);
    }

    /**
     * True when an answer about the events below {@code logEnd} needs no position still to be loaded:
     * every such position is below the last unloaded one + 1, and only the count of those is needed.
     */
    private boolean answerableBelow(long logEnd) {
        return unloaded == 0 || lastUnloaded < logEnd;
    }

    /** Waits (holding no lock) until the positions to come are loaded. */
    private void awaitLoad() {
        try {
            load.await();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized Head head() {
        return new Head(headSequence, headHash);
    }

    /** Positions in the log of this agent's events below {@code logEnd}, in log order. */
    long[] positionsBelow(long logEnd) {
        while (true) {
            synchronized (this) {
                if (unloaded == 0) {
                    return positions.toArray(0, countBelowLocked(logEnd));
                }
            }
            awaitLoad();
        }
    }

    /** Number of this agent's events below {@code logEnd}. */
    int countBelow(long logEnd) {
        while (true) {
            synchronized (this) {
                if (answerableBelow(logEnd)) {
                    return countBelowLocked(logEnd);
                }
            }
            awaitLoad();
        }
    }

    /** The lock is held and {@link #answerableBelow} is true. */
    private int countBelowLocked(long logEnd) {
        return unloaded + positions.countBelow(logEnd);
    }

    /** The log positions of the agent's events at ordinals {@code [from, to)}, below {@link #countBelow}. */
    long[] positions(int from, int to) {
        while (true) {
            synchronized (this) {
                if (from < 0 || from > to || to > count) {
                    throw new IndexOutOfBoundsException("agent " + agentId + " has no events at ordinals " + from + ".."
                            + to);
                }
                if (from >= unloaded) {
                    return positions.toArray(from - unloaded, to - unloaded);
                }
            }
            awaitLoad();
        }
    }

    /** The log position of the agent's event at {@code ordinal} (0 for sequence 1), below {@link #countBelow}. */
    long positionAt(int ordinal) {
        while (true) {
            synchronized (this) {
                if (ordinal < 0 || ordinal >= count) {
                    throw new IndexOutOfBoundsException("agent " + agentId + " has no event at ordinal " + ordinal);
                }
                if (ordinal >= unloaded) {
                    return positions.get(ordinal - unloaded);
                }
                if (ordinal == unloaded - 1) {
                    return lastUnloaded;
                }
            }
            awaitLoad();
        }
    }

    /**
     * A consistent copy limited to the events below {@code logEnd}. When the agent has later events
     * (sequenced, not yet readable), the head fields are those of the newest sequenced event and
     * {@link Summary#headIsNewest()} is false: the caller reads the head at {@link Summary#lastPosition()}.
     */
    Summary summary(long logEnd) {
        while (true) {
            synchronized (this) {
                if (answerableBelow(logEnd)) {
                    int n = countBelowLocked(logEnd);
                    return new Summary(agentId, n, lastPositionLocked(n), n == count, lastRecordedAt, chainValid,
                            headSequence, headHash, verifiedAt, verifyError);
                }
            }
            awaitLoad();
        }
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
