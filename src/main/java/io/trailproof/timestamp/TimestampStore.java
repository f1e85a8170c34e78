package io.trailproof.timestamp;

import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.store.FilePrefix;

import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where timestamp records live (src/site/timestamps.md#record, src/site/storage.md), oldest first.
 *
 * <p><b>Atomic:</b> one {@link #append} stores one whole record or, after a crash, nothing of it.
 * <b>Durable on return:</b> {@link #append} returns only once the record is forced to disk, so a
 * {@code 201} is never sent for a record a crash could lose. Reads may run concurrently with appends.
 */
public interface TimestampStore extends Closeable {

    /** Stores the record; durable on return. */
    void append(TimestampRecord record) throws IOException;

    /**
     * {@link #append} unless the newest record already has this record's id; durable on return.
     * Idempotent against a re-apply of the last record (cluster mode: a crash between this append
     * and the replica's position frame applies the same topic record again).
     *
     * @return false when the record was already the newest, and nothing was stored
     */
    default boolean appendOnce(TimestampRecord record) throws IOException {
        Optional<TimestampRecord> newest = latest();
        if (newest.isPresent() && newest.get().id().equals(record.id())) {
            return false;
        }
        append(record);
        return true;
    }

    /** Number of records. */
    long size();

    /** The most recent record, if any. */
    Optional<TimestampRecord> latest() throws IOException;

    /** Up to {@code limit} records, newest first, skipping the {@code offset} newest. */
    List<TimestampRecord> newestFirst(long offset, int limit) throws IOException;

    /**
     * Visits every record, oldest first, one at a time (for finding one by id and for picking the
     * timestamps an evidence package embeds, without holding them all).
     */
    void forEachOldestFirst(Consumer<TimestampRecord> visitor) throws IOException;

    /**
     * The files holding exactly the records durable now, each cut at a committed point
     * ({@link io.trailproof.store.EventLog#committedFiles}): for an online backup.
     *
     * @throws UnsupportedOperationException when the records are not kept in local files
     */
    default List<FilePrefix> committedFiles() throws IOException {
        throw new UnsupportedOperationException("the timestamp records are not kept in local files");
    }
}
