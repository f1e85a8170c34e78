package io.trailproof.ledger;

/**
 * An erasure record of the replicated log (cluster mode) as a replica applies it: the erasure event
 * takes its time and id bits from the record, as replicated events do, so every replica seals the
 * same erasure event at the same log index and erases the same content.
 *
 * @param offset the record's offset in the topic partition (kept as the replica's position)
 * @param brokerTimeMillis the record's broker time ({@code LogAppendTime})
 * @param idBits bits of the erasure event's id taken from a hash of the record
 * @param order the erasure, resolved to log indexes by the node that produced the record
 */
public record ReplicatedErasure(long offset, long brokerTimeMillis, int idBits, ErasureOrder order) {
}
