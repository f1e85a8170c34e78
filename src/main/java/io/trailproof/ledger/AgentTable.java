package io.trailproof.ledger;

import io.trailproof.core.event.EventFields;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every agent's {@link AgentState}, numbered in the order the ledger met them, and which agent each
 * log position not yet in the {@link PositionJournal} belongs to (the journal's next record). Only
 * the sequencer (and recovery, before the ledger serves) adds; readers look agents up concurrently.
 */
final class AgentTable {

    /**
     * The agents whose positions the chain-head snapshot holds in full, because the open reads them
     * (the erasure registry, the gate's policies): their events are operators' acts, a handful next
     * to the log, so a start that reads them from the snapshot reads what does not grow with the log.
     */
    static final Set<String> POSITIONS_IN_SNAPSHOT = Set.of(EventFields.ERASURES_AGENT, EventFields.POLICIES_AGENT);

    private final Map<String, AgentState> byId = new ConcurrentHashMap<>();
    // Guarded by this.
    private final List<AgentState> byOrdinal = new ArrayList<>();
    private int journaledAgents;
    private long tailStart;
    private int[] tail = new int[1024];
    private int tailCount;
    /** The load of the restored agents' positions after the start; null when none was left to it. */
    private volatile PositionLoad positionLoad;

    AgentState get(String agentId) {
        return byId.get(agentId);
    }

    Collection<AgentState> all() {
        return byId.values();
    }

    int count() {
        return byId.size();
    }

    /** Records the event at {@code logIndex}, the next position after those recorded so far. */
    synchronized void add(long logIndex, String agentId, long sequence, String hash, String recordedAt) {
        if (logIndex != tailStart + tailCount) {
            throw new IllegalStateException("event at log index " + logIndex + " recorded after "
                    + (tailStart + tailCount));
        }
        AgentState state = byId.get(agentId);
        if (state == null) {
            state = new AgentState(agentId, byOrdinal.size());
            byOrdinal.add(state);
            byId.put(agentId, state);
        }
        state.add(logIndex, sequence, hash, recordedAt);
        if (tailCount == tail.length) {
            tail = Arrays.copyOf(tail, tailCount * 2);
        }
        tail[tailCount++] = state.ordinal();
    }

    /** Recovery: an agent of the journal, in ordinal order; false when it is not the next one or known already. */
    synchronized boolean restoreAgent(int ordinal, String agentId) {
        if (ordinal != byOrdinal.size() || byId.containsKey(agentId)) {
            return false;
        }
        AgentState state = new AgentState(agentId, ordinal);
        byOrdinal.add(state);
        byId.put(agentId, state);
        journaledAgents = byOrdinal.size();
        return true;
    }

    /**
     * Recovery: every agent of a snapshot whose heads are in ordinal order, without reading the
     * journal; the positions of those whose snapshot head does not hold them come from {@code load}
     * ({@link AgentState#restored}). Call before any other agent is added.
     */
    synchronized void restoreFromSnapshot(List<HeadSnapshot.Head> heads, PositionLoad load) {
        if (!byOrdinal.isEmpty()) {
            throw new IllegalStateException("agents restored twice");
        }
        for (HeadSnapshot.Head h : heads) {
            int ordinal = byOrdinal.size();
            AgentState state;
            if (h.positions() != null) {
                state = new AgentState(h.agentId(), ordinal);
                state.addPositions(h.positions(), 0, h.positions().length);
                state.restoreHead(h.headSequence(), h.headHash(), h.lastRecordedAt());
            } else {
                state = AgentState.restored(h, ordinal, load);
            }
            byOrdinal.add(state);
            byId.put(h.agentId(), state);
        }
        journaledAgents = byOrdinal.size();
        positionLoad = load;
    }

    /** Every agent, by ordinal. */
    synchronized List<AgentState> inOrdinalOrder() {
        return new ArrayList<>(byOrdinal);
    }

    /** True while positions of restored agents are still being loaded after the start. */
    boolean positionsLoading() {
        PositionLoad load = positionLoad;
        return load != null && !load.done();
    }

    /** Agents numbered so far. */
    synchronized int ordinals() {
        return byOrdinal.size();
    }

    /**
     * Recovery: the events {@code [from, from + ordinals.length)} of the journal, in log order. The
     * record's positions are grouped by agent (a counting sort) and handed over one agent at a time,
     * rather than one call per event.
     */
    synchronized void restoreEvents(long from, int[] ordinals) {
        int agents = byOrdinal.size();
        if (agents > 4 * ordinals.length + 64) {
            // Far more agents than events in the record: grouping would cost more than it saves.
            for (int i = 0; i < ordinals.length; i++) {
                byOrdinal.get(ordinals[i]).addPosition(from + i);
            }
            return;
        }
        int[] start = new int[agents + 1];
        for (int o : ordinals) {
            start[o + 1]++;
        }
        for (int o = 0; o < agents; o++) {
            start[o + 1] += start[o];
        }
        int[] next = Arrays.copyOf(start, agents);
        long[] grouped = new long[ordinals.length];
        for (int i = 0; i < ordinals.length; i++) {
            grouped[next[ordinals[i]]++] = from + i;
        }
        for (int o = 0; o < agents; o++) {
            int n = start[o + 1] - start[o];
            if (n > 0) {
                byOrdinal.get(o).addPositions(grouped, start[o], n);
            }
        }
    }

    /** Recovery: everything below {@code logIndex} is in the journal; later events start the tail. */
    synchronized void journaledUpTo(long logIndex) {
        tailStart = logIndex;
        tailCount = 0;
    }

    /** Recovery: forgets everything restored (the journal did not match its snapshot). */
    synchronized void clear() {
        byId.clear();
        byOrdinal.clear();
        positionLoad = null;
        journaledAgents = 0;
        tailStart = 0;
        tailCount = 0;
    }

    /** What the next journal record holds: the positions {@code [from, to)} and the agents they introduce. */
    record Pending(long from, long to, int firstNewAgent, List<String> newAgents, int[] ordinals) {
    }

    /** The positions recorded since the journal's end, up to {@code to}. */
    synchronized Pending pending(long to) {
        int n = Math.toIntExact(to - tailStart);
        if (n < 0 || n > tailCount) {
            throw new IllegalArgumentException("positions up to " + to + " are not in the tail [" + tailStart + ", "
                    + (tailStart + tailCount) + ")");
        }
        int[] ordinals = Arrays.copyOf(tail, n);
        int introduced = 0;
        for (int o : ordinals) {
            introduced = Math.max(introduced, o + 1);
        }
        List<String> ids = new ArrayList<>();
        for (int i = journaledAgents; i < introduced; i++) {
            ids.add(byOrdinal.get(i).agentId());
        }
        return new Pending(tailStart, to, journaledAgents, ids, ordinals);
    }

    /** The journal now holds {@code written}: drops it from the tail. */
    synchronized void journaled(Pending written) {
        if (written.from() != tailStart) {
            throw new IllegalStateException("journal record from " + written.from() + " but the tail starts at " + tailStart);
        }
        int n = written.ordinals().length;
        System.arraycopy(tail, n, tail, 0, tailCount - n);
        tailCount -= n;
        tailStart = written.to();
        journaledAgents = written.firstNewAgent() + written.newAgents().size();
        if (tail.length > 1024 && tailCount < tail.length / 4) {
            tail = Arrays.copyOf(tail, Math.max(1024, tailCount * 2));
        }
    }
}
