package io.trailproof.ledger;

import io.trailproof.store.EventLog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * How far a replica (cluster mode) has applied the replicated log: the offset of the last record
 * applied and the log time reached then (the latest broker time seen, which dedupe expiry follows).
 * Written as a side frame in the group of every applied record, under the same commit as the
 * record's events, so after a crash the events and the position agree; the last one in the log is
 * read back at open ({@link Ledger#replicaPosition()}).
 *
 * <pre>
 *   'K'        1 byte, marks a replica position among side frames
 *   version    1 byte, 1
 *   offset     8 bytes big-endian, the record's offset in the topic partition
 *   time       8 bytes big-endian, epoch milliseconds
 * </pre>
 */
public record ReplicaPosition(long offset, long timeMillis) {

    static final byte MARKER = 'K';
    static final byte VERSION = 1;
    private static final int BYTES = 18;

    byte[] encode() {
        return ByteBuffer.allocate(BYTES).put(MARKER).put(VERSION).putLong(offset).putLong(timeMillis).array();
    }

    /** The position in a side frame's payload, or null when it is another kind of side record. */
    static ReplicaPosition decode(byte[] payload) {
        if (payload.length != BYTES || payload[0] != MARKER || payload[1] != VERSION) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        return new ReplicaPosition(b.getLong(2), b.getLong(10));
    }

    /**
     * The offset of the last replica position among the side records of the group of event
     * {@code size - 1} ({@link EventLog#groupSides}), or empty when there is none.
     */
    static Optional<Long> offsetInGroupOf(EventLog log, long size) throws IOException {
        Long offset = null;
        for (byte[] side : log.groupSides(size)) {
            ReplicaPosition p = side.length > 0 && side[0] == MARKER ? decode(side) : null;
            if (p != null) {
                offset = p.offset();
            }
        }
        return Optional.ofNullable(offset);
    }
}
