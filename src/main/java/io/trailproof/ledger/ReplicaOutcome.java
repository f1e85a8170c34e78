package io.trailproof.ledger;

import io.trailproof.ledger.LedgerViews.AppendOutcome;

import java.util.List;

/**
 * What applying one replicated record did (cluster mode). {@code end} is the log size right after
 * the record: a reader that has seen that size sees everything the record stored.
 */
public sealed interface ReplicaOutcome {

    long end();

    /**
     * The events were sealed (or refused one by one, as in the embedded mode). For a write with
     * marks ({@link ReplicatedWrite#marks}), an event whose mark was already recorded has a null
     * outcome: not stored again, as the embedded OTLP path does not store a span twice.
     */
    record Stored(List<AppendOutcome> outcomes, long end) implements ReplicaOutcome {
    }

    /** The key was already recorded with the same content: nothing stored; this is the first answer's record. */
    record Replayed(DedupeRecord record, long end) implements ReplicaOutcome {
    }

    /** The key was already recorded with other content: nothing stored (HTTP 422). */
    record Conflicting(long end) implements ReplicaOutcome {
    }

    /**
     * An erasure record was applied: {@code outcome} is what it erased (its erasure event null when
     * there was nothing to record), or {@code refused} says why it was refused on every node (its
     * erasure event would exceed an event's size) and {@code outcome} is null.
     */
    record Erased(LedgerErasures.ErasureOutcome outcome, String refused, long end) implements ReplicaOutcome {
    }
}
