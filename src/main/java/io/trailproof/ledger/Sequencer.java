package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventRejection;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.EventLog;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Seals events into their chains and the log, one group at a time, and publishes the size readers
 * may use.
 *
 * <p><b>The readable size</b> ({@link #readableSize()}) is at most the log's durable size and at most
 * what the tree and the agents' state hold: a group is written to the log, its leaves appended to the
 * tree and its events added to the agents, and only then is it counted as applied; the log's sync
 * thread makes it durable independently. So a reader that takes the readable size never asks the
 * tree or an agent for an event they do not have yet, and never sees an event that is not durable.
 *
 * <p><b>Failures.</b> A storage failure, or an {@link Error}, once the log write of a group has begun
 * leaves the log, tree and agents possibly out of step: writes stop for good ({@link LedgerHealth}
 * records why) and every later write gets a {@link LedgerUnavailableException}; reads go on at the
 * last readable size. An {@link Error} while sealing, before anything was written, fails only that
 * group (503), since nothing changed.
 */
final class Sequencer {

    private static final long[] NO_ADDRESSES = new long[0];

    private final Object lock = new Object();
    private final EventLog log;
    private final TreeAppends tree;
    private final AgentTable agents;
    private final EventIds ids;
    private final Clock clock;
    private final LedgerHealth health;

    // Guarded by lock.
    private Instant lastRecordedAt;
    private String lastHash;
    private boolean closed;

    /** Log size up to which the tree and the agents are updated. */
    private volatile long applied;

    Sequencer(EventLog log, TreeAppends tree, AgentTable agents, EventIds ids, Clock clock, LedgerHealth health,
              Instant lastRecordedAt, String lastHash, long applied) {
        this.log = log;
        this.tree = tree;
        this.agents = agents;
        this.ids = ids;
        this.clock = clock;
        this.health = health;
        this.lastRecordedAt = lastRecordedAt;
        this.lastHash = lastHash;
        this.applied = applied;
    }

    /**
     * Events sequenced and written, not yet durable: their outcomes, the log size after them, and
     * the dedupe records written in their group (to enter into the table once it is durable).
     */
    record Sequenced(AppendOutcome[] outcomes, long end, List<Written> records) {
        Sequenced(AppendOutcome[] outcomes, long end) {
            this(outcomes, end, List.of());
        }

        /** Events of the group stored (given a log index). */
        long stored() {
            long n = 0;
            for (AppendOutcome o : outcomes) {
                n += o.ok() ? 1 : 0;
            }
            return n;
        }

        /** The group is durable: its records enter the table (and their claims end). */
        void publish(DedupeTable table) {
            for (Written w : records) {
                table.recorded(w.claim(), w.address(), w.atMillis());
            }
        }
    }

    /** A dedupe record written in a group, and where. */
    record Written(DedupeTable.Claim claim, long address, long atMillis) {
    }

    /**
     * Service fields taken from a replicated record instead of this node's clock and randomness
     * (cluster mode, {@link ReplicaApplies}): every replica seals the same bytes.
     *
     * @param time the record's broker time; {@code recorded_at} is the later of it and the previous
     *     event's, and a dedupe record's time is it
     * @param idBits the 26 id bits the embedded mode draws at random, from a hash of the record
     */
    record Stamp(Instant time, int idBits) {
    }

    /** The events {@code [from, to)} of a group belong to one keyed write. */
    record Keyed(int from, int to, KeyedAnswer recording) {
    }

    /** What a chain-head snapshot covers, taken at one instant between groups. */
    record Snapshot(long logSize, String lastHash, String lastRecordedAt, List<HeadSnapshot.Head> heads,
                    AgentTable.Pending journal) {
    }

    /**
     * Both sizes are monotonic, so the smaller of the two as read here is at most what each is by the
     * time the caller uses it.
     */
    long readableSize() {
        long a = applied;
        return Math.min(a, log.durableSize());
    }

    /**
     * Seals and writes a group of events in order and updates the chains and the tree; the caller
     * waits for durability before acknowledging any of them.
     */
    Sequenced sequence(List<Submission> events) throws LedgerUnavailableException {
        return sequence(events, List.of());
    }

    /**
     * {@link #sequence(List)}, also writing, in the same group and so under the same commit, one
     * {@link DedupeRecord} per keyed write whose answer builder records something. A group may then
     * hold no event at all (a batch whose every item was refused still records its answer).
     */
    Sequenced sequence(List<Submission> events, List<Keyed> keyed) throws LedgerUnavailableException {
        return sequence(events, keyed, null, List.of());
    }

    /**
     * {@link #sequence(List, List)} with the service fields from {@code stamp} when it is not null
     * (a replicated record), and {@code extraSides} (side records owned by the caller, such as the
     * replica's position) in the same group, after the dedupe records. With extra sides, a group is
     * written even when it holds no event and no dedupe record.
     */
    Sequenced sequence(List<Submission> events, List<Keyed> keyed, Stamp stamp, List<byte[]> extraSides)
            throws LedgerUnavailableException {
        AppendOutcome[] outcomes = new AppendOutcome[events.size()];
        synchronized (lock) {
            if (closed) {
                throw new LedgerUnavailableException("the service is shutting down", null);
            }
            throwIfFailed();
            long index = log.size();
            List<StoredEvent> sealed;
            try {
                sealed = seal(events, outcomes, index, stamp);
            } catch (Error e) {
                throw new LedgerUnavailableException("the sequencer could not seal the events (" + e
                        + "); nothing was stored", e);
            }
            if (keyed.isEmpty() && extraSides.isEmpty()) {
                if (!sealed.isEmpty()) {
                    write(sealed, List.of());
                    index += sealed.size();
                }
                return new Sequenced(outcomes, index);
            }
            long at = stamp == null ? clock.millis() : stamp.time().toEpochMilli();
            List<byte[]> sides = new ArrayList<>(keyed.size());
            List<DedupeTable.Claim> claims = new ArrayList<>(keyed.size());
            for (Keyed k : keyed) {
                byte[] answer = k.recording().answer().build(Arrays.asList(outcomes).subList(k.from(), k.to()));
                if (answer != null) {
                    DedupeTable.Claim c = k.recording().claim();
                    sides.add(new DedupeRecord(c.key().namespace(), c.key().digest(), c.contentDigest(), at, answer).encode());
                    claims.add(c);
                }
            }
            sides.addAll(extraSides);
            if (sealed.isEmpty() && sides.isEmpty()) {
                return new Sequenced(outcomes, index);
            }
            long[] addresses = write(sealed, sides);
            index += sealed.size();
            List<Written> written = new ArrayList<>(claims.size());
            for (int i = 0; i < claims.size(); i++) {
                written.add(new Written(claims.get(i), addresses[i], at));
            }
            return new Sequenced(outcomes, index, written);
        }
    }

    private List<StoredEvent> seal(List<Submission> events, AppendOutcome[] outcomes, long index, Stamp stamp) {
        Map<String, AgentState.Head> pending = new HashMap<>();
        List<StoredEvent> sealed = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            ObjectNode fields = events.get(i).fields();
            String agentId = fields.get(EventFields.AGENT_ID).asText();
            AgentState.Head head = pending.get(agentId);
            if (head == null) {
                AgentState state = agents.get(agentId);
                head = state == null ? new AgentState.Head(0, EventFields.GENESIS_PREV_HASH) : state.head();
            }
            Instant now = nextRecordedAt(stamp == null ? clock.instant() : stamp.time());
            try {
                String id = stamp == null ? ids.create(now.toEpochMilli(), index)
                        : EventIds.derived(now.toEpochMilli(), index, stamp.idBits());
                StoredEvent event = StoredEvent.seal(fields, id,
                        EventTime.formatRecordedAt(now), head.sequence() + 1, head.hash(), index,
                        events.get(i).sizeAllowance());
                sealed.add(event);
                pending.put(agentId, new AgentState.Head(event.sequence(), event.hash()));
                outcomes[i] = AppendOutcome.stored(event);
                index++;
            } catch (EventRejection e) {
                outcomes[i] = AppendOutcome.refused(e.getMessage());
            }
        }
        return sealed;
    }

    /**
     * Log (events and side records in one group), then tree, then agents; only then is the group
     * applied. Any failure here stops writes. Returns the side records' addresses.
     */
    private long[] write(List<StoredEvent> sealed, List<byte[]> sides) throws LedgerUnavailableException {
        try {
            List<byte[]> payloads = new ArrayList<>(sealed.size());
            for (StoredEvent e : sealed) {
                payloads.add(e.payload());
            }
            long[] addresses = NO_ADDRESSES;
            if (sides.isEmpty()) {
                log.append(payloads);
            } else {
                addresses = log.append(payloads, sides).sideAddresses();
            }
            if (sealed.isEmpty()) {
                return addresses;
            }
            for (StoredEvent e : sealed) {
                tree.append(Rfc9162.leafHash(e.hashBytes()));
            }
            for (StoredEvent e : sealed) {
                agents.add(e.logIndex(), e.agentId(), e.sequence(), e.hash(), e.recordedAt());
            }
            StoredEvent last = sealed.get(sealed.size() - 1);
            lastHash = last.hash();
            applied = last.logIndex() + 1;
            return addresses;
        } catch (Exception | Error e) {
            health.failWrites("storage or the sequencer failed while writing a group", e);
            throw new LedgerUnavailableException("storage failed while writing: " + e, e);
        }
    }

    /**
     * recorded_at: the clock (or a replicated record's time) in microseconds, never earlier than the
     * previous event's (src/site/events.md#service-assigned-fields).
     */
    private Instant nextRecordedAt(Instant time) {
        Instant now = time.truncatedTo(ChronoUnit.MICROS);
        if (now.isBefore(lastRecordedAt)) {
            now = lastRecordedAt;
        }
        lastRecordedAt = now;
        return now;
    }

    void throwIfFailed() throws LedgerUnavailableException {
        String f = health.writeFailure();
        if (f != null) {
            throw new LedgerUnavailableException(f, health.writeFailureCause());
        }
    }

    /** The group up to {@code end} could not be made durable: writes stop. */
    LedgerUnavailableException durabilityFailed(Throwable cause) {
        health.failWrites("storage failed while forcing the log", cause);
        return new LedgerUnavailableException("storage failed while forcing the log: " + cause, cause);
    }

    /** Everything a snapshot of the current state needs; O(agents + events since the last journal record). */
    Snapshot snapshot() {
        synchronized (lock) {
            long size = applied;
            List<HeadSnapshot.Head> heads = new ArrayList<>(agents.count());
            for (AgentState a : agents.inOrdinalOrder()) {
                heads.add(AgentTable.POSITIONS_IN_SNAPSHOT.contains(a.agentId()) ? a.snapshotHeadWithPositions()
                        : a.snapshotHead());
            }
            return new Snapshot(size, lastHash, EventTime.formatRecordedAt(lastRecordedAt), heads, agents.pending(size));
        }
    }

    /** Stops writes; returns false when already closed. */
    boolean close() {
        synchronized (lock) {
            if (closed) {
                return false;
            }
            closed = true;
            return true;
        }
    }
}
