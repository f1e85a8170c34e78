package io.trailproof.ledger;

import io.trailproof.store.EventLog;
import io.trailproof.store.FilePrefix;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The log's files as an online backup copies them (src/site/operations.md): a hold that keeps their
 * bytes unchanged, and the prefixes that hold exactly the readable events. Handed out by
 * {@link Ledger#logFiles()}.
 */
public final class LogFiles {

    private final EventLog log;
    private final LogFileHolds holds;
    private final LongSupplier readableSize;

    LogFiles(EventLog log, LogFileHolds holds, LongSupplier readableSize) {
        this.log = log;
        this.holds = holds;
        this.readableSize = readableSize;
    }

    /**
     * Keeps the bytes of the log's files as they are until the hold is closed: a rewrite (an
     * erasure, src/site/erasure.md#crash-safety-of-an-erasure) waits for it; taking one waits for a running rewrite.
     * An online backup holds one from fixing its file prefixes ({@link #committed}) until it has
     * sent them.
     */
    public LogFileHolds.Hold hold() throws InterruptedIOException {
        return holds.hold();
    }

    /**
     * The log files holding exactly the readable events {@code [0, size)}, each cut at the end of a
     * committed group ({@link EventLog#committedFiles}): a copy of them opens as a log of
     * {@code size} events whose tree has {@link Ledger#root(long) root(size)}. The bytes named never
     * change while a {@link #hold} is taken (only an erasure rewrites them), so they are read without
     * any other lock; appends never wait for this.
     *
     * @throws IllegalArgumentException when {@code size} is beyond {@link Ledger#size()}
     */
    public List<FilePrefix> committed(long size) throws IOException {
        long readable = readableSize.getAsLong();
        if (size < 0 || size > readable) {
            throw new IllegalArgumentException("tree size " + size + " is not readable (readable: " + readable + ")");
        }
        return log.committedFiles(size);
    }
}
