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
 * @param marks per event, the key that marks it stored (an OTLP span's trace and span id), or empty
 *     for a write without marks. An event whose mark is already recorded (in the log's time) is not
 *     stored again; each stored one gets its mark recorded in its own group. The marks of one write
 *     are distinct, every mark's content digest is all zeros (first one wins, as in embedded mode).
 * @param markAnswer builds the answer recorded under each mark from its event's outcome; null without marks
 */
public record ReplicatedWrite(long offset, long brokerTimeMillis, int idBits, List<Submission> events, DedupeKey key,
                              byte[] contentDigest, KeyedAnswer.AnswerBuilder answer, List<DedupeKey> marks,
                              KeyedAnswer.AnswerBuilder markAnswer) {

    public ReplicatedWrite {
        events = List.copyOf(events);
        marks = List.copyOf(marks);
        if ((key == null) != (contentDigest == null) || (key == null) != (answer == null)) {
            throw new IllegalArgumentException("a keyed write has key, content digest and answer builder; others none");
        }
        if (!marks.isEmpty() && (marks.size() != events.size() || markAnswer == null || key != null)) {
            throw new IllegalArgumentException("a marked write has one mark per event, a mark answer builder and no key");
        }
    }

    /** A write without per-event marks. */
    public ReplicatedWrite(long offset, long brokerTimeMillis, int idBits, List<Submission> events, DedupeKey key,
                           byte[] contentDigest, KeyedAnswer.AnswerBuilder answer) {
        this(offset, brokerTimeMillis, idBits, events, key, contentDigest, answer, List.of(), null);
    }
}
