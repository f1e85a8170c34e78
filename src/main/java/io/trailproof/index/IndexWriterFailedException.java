package io.trailproof.index;

import java.io.IOException;

/**
 * A write to the index failed (a disk error while adding or committing, or a fatal error that made
 * Lucene close its writer). The index has been rolled back to its last commit and takes no more
 * writes; its owner closes it and opens it again, then indexes the log beyond that commit anew.
 * The message says what failed and how many log entries the last commit holds.
 */
public final class IndexWriterFailedException extends IOException {

    private final long committedSize;

    IndexWriterFailedException(String message, long committedSize, Throwable cause) {
        super(message, cause);
        this.committedSize = committedSize;
    }

    /** The log entries the index's last commit holds: what it holds again once reopened. */
    public long committedSize() {
        return committedSize;
    }
}
