package io.trailproof.ledger;

import io.trailproof.store.EventLog;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * The write side of a replica (cluster mode): applies replicated records in log order, each as one
 * group holding its events, its dedupe record (for a keyed write) and the replica's new position,
 * under one commit. Everything assigned comes from the record ({@link Sequencer.Stamp}), and whether
 * a key was already used is decided in the log's time ({@link LogTime}) from recorded keys only, so
 * every replica stores the same events at the same indexes.
 *
 * <p><b>Durability:</b> {@link #apply} writes; {@link #sync} makes everything applied durable and
 * only then enters the new dedupe records and tells the size listeners. The caller (one apply
 * thread) answers nobody before {@link #sync} returned. Not thread-safe: one thread applies.
 */
public final class ReplicaApplies {

    /** The content digest of every mark (first one wins whatever the content). */
    private static final byte[] NO_CONTENT = new byte[32];

    private final Sequencer sequencer;
    private final EventLog log;
    private final DedupeTable dedupe;
    private final LogTime time;
    private final LongConsumer afterDurable;
    private final LedgerErasures erasures;
    private final List<Sequencer.Written> unpublished = new ArrayList<>();
    private final Set<DedupeKey> unpublishedKeys = new HashSet<>();
    private boolean sideOnlyWritten;
    private long position;

    ReplicaApplies(Sequencer sequencer, EventLog log, DedupeTable dedupe, LogTime time, long position,
                   LongConsumer afterDurable, LedgerErasures erasures) {
        this.erasures = erasures;
        this.sequencer = sequencer;
        this.log = log;
        this.dedupe = dedupe;
        this.time = time;
        this.position = position;
        this.afterDurable = afterDurable;
    }

    /** Offset of the last record applied (written, maybe not yet durable); -1 before the first. */
    public long position() {
        return position;
    }

    /**
     * Applies one record; not durable on return. Records must come in offset order, each once.
     *
     * @throws LedgerUnavailableException when storage failed (writes stop, as in the embedded mode)
     * @throws IOException when a dedupe record the table points at cannot be read back
     */
    public ReplicaOutcome apply(ReplicatedWrite w) throws IOException {
        if (w.offset() <= position) {
            throw new IllegalArgumentException("record at offset " + w.offset() + " is at or before the replica's "
                    + "position " + position + ": records are applied once, in order");
        }
        long now = time.advanceTo(w.brokerTimeMillis());
        Sequencer.Stamp stamp = new Sequencer.Stamp(Instant.ofEpochMilli(now), w.idBits());
        List<byte[]> marker = List.of(new ReplicaPosition(w.offset(), now).encode());
        List<Sequencer.Keyed> keyed = List.of();
        if (w.key() != null) {
            if (unpublishedKeys.contains(w.key())) {
                sync();   // the same key twice in one batch: the first must be in the table before the second is looked up
            }
            DedupeTable.Lookup found = dedupe.recordedAt(w.key(), w.contentDigest(), now);
            if (found instanceof DedupeTable.Recorded r) {
                DedupeRecord record = DedupeRecord.decode(log.readSide(r.address()));
                if (record == null || record.namespace() != w.key().namespace()
                        || !Arrays.equals(record.keyDigest(), w.key().digest())) {
                    throw new IOException("the dedupe record of " + w.key() + " is not at log address " + r.address());
                }
                if (Arrays.equals(record.contentDigest(), w.contentDigest())) {
                    return new ReplicaOutcome.Replayed(record, markOnly(w, stamp, marker));
                }
                return new ReplicaOutcome.Conflicting(markOnly(w, stamp, marker));
            }
            if (found instanceof DedupeTable.Conflict) {
                return new ReplicaOutcome.Conflicting(markOnly(w, stamp, marker));
            }
            keyed = List.of(new Sequencer.Keyed(0, w.events().size(),
                    new KeyedAnswer(dedupe.detached(w.key(), w.contentDigest()), w.answer())));
        }
        if (!w.marks().isEmpty()) {
            return applyMarked(w, stamp, marker);
        }
        Sequencer.Sequenced s = sequencer.sequence(w.events(), keyed, stamp, marker);
        position = w.offset();
        if (s.stored() == 0) {
            sideOnlyWritten = true;
        }
        for (Sequencer.Written written : s.records()) {
            unpublished.add(written);
            unpublishedKeys.add(written.claim().key());
        }
        return new ReplicaOutcome.Stored(Arrays.asList(s.outcomes()), s.end());
    }

    /**
     * Applies an erasure record (src/site/erasure.md#cluster-mode): makes everything applied before
     * it durable, then records the erasure event (its time and id bits from the record, the
     * replica's position in its group) and rewrites this node's log, as
     * {@link Ledger#erase} does. Durable on return. The caller then removes the content from what it
     * derived (the search index) and calls {@link Ledger#erasureSettled}; a crash before that is
     * completed at the next open (the {@code erasure-pending} marker), and the record is not applied
     * again, since the position is in the erasure event's group. A crash before the erasure event
     * was durable leaves the position before the record: it is applied again, whole.
     *
     * <p>An order that erases nothing (a retention order whose every candidate was erased by an
     * earlier record) records nothing but the position; one whose erasure event would be too large
     * is refused alike on every node ({@link ReplicaOutcome.Erased#refused}).
     */
    public ReplicaOutcome.Erased applyErasure(ReplicatedErasure e) throws IOException {
        if (e.offset() <= position) {
            throw new IllegalArgumentException("record at offset " + e.offset() + " is at or before the replica's "
                    + "position " + position + ": records are applied once, in order");
        }
        sync();   // the erasure reads, and may rewrite, what this poll applied before it
        long now = time.advanceTo(e.brokerTimeMillis());
        Sequencer.Stamp stamp = new Sequencer.Stamp(Instant.ofEpochMilli(now), e.idBits());
        List<byte[]> marker = List.of(new ReplicaPosition(e.offset(), now).encode());
        LedgerErasures.ErasureOutcome out;
        try {
            out = erasures.eraseReplicated(e.order(), stamp, marker);
        } catch (LedgerErasures.ErasureTooLargeException tooLarge) {
            position = e.offset();   // the group holding the position was written without the event
            sideOnlyWritten = true;
            sync();
            erasures.settled();
            return new ReplicaOutcome.Erased(null, tooLarge.getMessage(), log.size());
        }
        position = e.offset();
        if (out.erasure() == null) {
            markOnly(e.offset(), stamp, marker);
            sync();
            return new ReplicaOutcome.Erased(out, null, log.size());
        }
        return new ReplicaOutcome.Erased(out, null, log.size());
    }

    /**
     * A write whose events each carry a mark: the events whose mark is recorded (within retention,
     * in the log's time) are left out, the others are stored each with its mark in one group.
     */
    private ReplicaOutcome applyMarked(ReplicatedWrite w, Sequencer.Stamp stamp, List<byte[]> marker) throws IOException {
        long now = stamp.time().toEpochMilli();
        List<Submission> kept = new ArrayList<>(w.events().size());
        List<Integer> keptAt = new ArrayList<>(w.events().size());
        List<Sequencer.Keyed> keyed = new ArrayList<>(w.events().size());
        for (int i = 0; i < w.events().size(); i++) {
            DedupeKey mark = w.marks().get(i);
            if (unpublishedKeys.contains(mark)) {
                sync();   // marked by a record of this poll: it must be in the table before it is looked up
            }
            if (dedupe.recordedAt(mark, NO_CONTENT, now) != null) {
                continue;   // stored by an earlier write: not again
            }
            keyed.add(new Sequencer.Keyed(kept.size(), kept.size() + 1,
                    new KeyedAnswer(dedupe.detached(mark, NO_CONTENT), w.markAnswer())));
            kept.add(w.events().get(i));
            keptAt.add(i);
        }
        Sequencer.Sequenced s = sequencer.sequence(kept, keyed, stamp, marker);
        position = w.offset();
        if (s.stored() == 0) {
            sideOnlyWritten = true;
        }
        for (Sequencer.Written written : s.records()) {
            unpublished.add(written);
            unpublishedKeys.add(written.claim().key());
        }
        LedgerViews.AppendOutcome[] outcomes = new LedgerViews.AppendOutcome[w.events().size()];
        for (int j = 0; j < kept.size(); j++) {
            outcomes[keptAt.get(j)] = s.outcomes()[j];
        }
        return new ReplicaOutcome.Stored(Arrays.asList(outcomes), s.end());
    }

    private long markOnly(ReplicatedWrite w, Sequencer.Stamp stamp, List<byte[]> marker) throws IOException {
        return markOnly(w.offset(), stamp, marker);
    }

    private long markOnly(long offset, Sequencer.Stamp stamp, List<byte[]> marker) throws IOException {
        Sequencer.Sequenced s = sequencer.sequence(List.of(), List.of(), stamp, marker);
        position = offset;
        sideOnlyWritten = true;
        return s.end();
    }

    /**
     * Makes every record applied so far durable, then enters their dedupe records into the table
     * and tells the size listeners.
     *
     * @throws LedgerUnavailableException when the force failed (writes stop)
     */
    public void sync() throws IOException {
        long end = log.size();
        try {
            log.awaitDurable(end);
            if (sideOnlyWritten) {
                log.forceWritten();   // groups of side records alone advance no index (EventLog#forceWritten)
            }
        } catch (IOException e) {
            throw sequencer.durabilityFailed(e);
        }
        sideOnlyWritten = false;
        for (Sequencer.Written w : unpublished) {
            dedupe.recorded(w.claim(), w.address(), w.atMillis());
        }
        unpublished.clear();
        unpublishedKeys.clear();
        afterDurable.accept(end);
    }
}
