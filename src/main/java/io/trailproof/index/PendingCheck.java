package io.trailproof.index;

import org.apache.lucene.index.DirectoryReader;

import java.io.IOException;
import java.util.List;

/**
 * The views of an index as it was opened, whose files' checksums are still to be verified: while a
 * view is open its files stay on disk, whatever merges meanwhile. Done once verified, or released by
 * {@link #close} (a check under way then fails, and its caller knows the index was closed).
 */
final class PendingCheck {

    /** Null once verified (by {@link #run}, under {@link #lock}) or closed. */
    private volatile List<DirectoryReader> views;
    private final Object lock = new Object();

    PendingCheck(List<DirectoryReader> views) {
        this.views = views;
    }

    /**
     * Verifies the checksum of every file the views hold, reading each whole; at once when done before.
     * Safe beside writes and searches.
     *
     * @throws IOException when a file fails its checksum (a CorruptIndexException) or is missing
     */
    void run() throws IOException {
        List<DirectoryReader> held;
        synchronized (lock) {
            held = views;
            if (held == null) {
                return;
            }
            for (DirectoryReader view : held) {
                IndexPart.checkIntegrity(view);
            }
            views = null;
        }
        // Closed here, not under the lock: a close meanwhile closes them too (idempotent).
        closeAll(held);
    }

    /** True once verified or closed. */
    boolean done() {
        return views == null;
    }

    /** Releases the views without verifying them. */
    void close() throws IOException {
        List<DirectoryReader> held = views;
        views = null;
        if (held != null) {
            closeAll(held);
        }
    }

    private static void closeAll(List<DirectoryReader> views) throws IOException {
        IOException failed = null;
        for (DirectoryReader view : views) {
            try {
                view.close();
            } catch (IOException e) {
                if (failed == null) {
                    failed = e;
                } else {
                    failed.addSuppressed(e);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }
}
