package io.trailproof.core.chain;

/**
 * Which erasure record names an event (src/site/erasure.md#verification): an erased event's hash
 * cannot be recomputed, so it is accepted only when an erasure event of the trail names its log index.
 */
@FunctionalInterface
public interface ErasureRecords {

    /** No erasure was ever recorded: every erased event is an error. */
    ErasureRecords NONE = logIndex -> null;

    /** The id of the erasure event that names the event at {@code logIndex}, or null when none does. */
    String erasureOf(long logIndex);
}
