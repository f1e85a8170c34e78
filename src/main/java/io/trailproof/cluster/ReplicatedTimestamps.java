package io.trailproof.cluster;

import io.trailproof.core.timestamp.TimestampRecord;

import java.io.IOException;

/**
 * Where the apply loop stores the timestamp records of the topic (the node's timestamp store,
 * wired by the server; this package knows nothing of the timestamp service).
 */
@FunctionalInterface
public interface ReplicatedTimestamps {

    /**
     * Stores the record unless it is already the newest one stored (a re-apply after a crash between
     * this store and the replica's position frame); durable on return.
     */
    void appendOnce(TimestampRecord record) throws IOException;
}
