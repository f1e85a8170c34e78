package io.trailproof.ledger;

import java.util.List;

/**
 * One record of the replicated log (cluster mode) as a replica applies it: everything the ledger
 * needs comes from the record, so every replica seals the same bytes.
 *
 * @param offset the record's offset in the topic partition (kept as the replica's position)
 * @param brokerTimeMillis the record's broker time ({@code LogAppendTime})
 * @param idBits bits of the events' ids taken from a hash of the record
 * @param events the events, validated and redacted by the node that produced the record
 * @param key the idempotency key the write was sent with (scope and path folded in), or null
 * @param contentDigest SHA-256 of the request body sent with {@code key}; null without a key
 * @param answer builds the answer to record under {@code key}; null without a key
 */
public record ReplicatedWrite(long offset, long brokerTimeMillis, int idBits, List<Submission> events, DedupeKey key,
                              byte[] contentDigest, Recording.AnswerBuilder answer) {

    public ReplicatedWrite {
        events = List.copyOf(events);
        if ((key == null) != (contentDigest == null) || (key == null) != (answer == null)) {
            throw new IllegalArgumentException("a keyed write has key, content digest and answer builder; others none");
        }
    }
}
