package io.trailproof.ledger;

import java.io.InterruptedIOException;

/**
 * Makes readers that rely on the log's files not changing (an online backup copies file prefixes
 * fixed at one moment, src/site/operations.md) and rewrites of those files (an erasure,
 * src/site/erasure.md#crash-safety-of-an-erasure) exclude each other. Any number of holds at once;
 * a rewrite waits until none is held, and while a rewrite runs or waits, new holds wait for it
 * (so a stream of backups cannot delay an erasure for ever). Not tied to threads: a hold may be
 * released by another thread than the one that took it.
 */
public final class LogFileHolds {

    private int holds;
    private boolean rewriting;
    private int rewritesWaiting;

    /** A taken hold; closing it twice releases it once. */
    public interface Hold extends AutoCloseable {
        @Override
        void close();
    }

    /** Waits while a rewrite runs or waits, then holds the files unchanged until the hold is closed. */
    Hold hold() throws InterruptedIOException {
        synchronized (this) {
            while (rewriting || rewritesWaiting > 0) {
                await("a log rewrite (erasure) to finish");
            }
            holds++;
        }
        boolean[] released = {false};
        return () -> {
            synchronized (LogFileHolds.this) {
                if (!released[0]) {
                    released[0] = true;
                    holds--;
                    LogFileHolds.this.notifyAll();
                }
            }
        };
    }

    /** Waits until no hold is taken and no other rewrite runs, then runs {@code rewrite} alone. */
    <T, E extends Exception> T rewrite(Work<T, E> rewrite) throws E, InterruptedIOException {
        synchronized (this) {
            rewritesWaiting++;
            try {
                while (holds > 0 || rewriting) {
                    await("the running backup to finish");
                }
            } finally {
                rewritesWaiting--;
                notifyAll();   // holds waiting for this rewrite re-check (it may have given up)
            }
            rewriting = true;
        }
        try {
            return rewrite.run();
        } finally {
            synchronized (this) {
                rewriting = false;
                notifyAll();
            }
        }
    }

    /** Whether a hold is taken now (for status and tests). */
    synchronized boolean held() {
        return holds > 0;
    }

    private void await(String what) throws InterruptedIOException {
        try {
            wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            notifyAll();
            throw new InterruptedIOException("interrupted while waiting for " + what);
        }
    }

    @FunctionalInterface
    interface Work<T, E extends Exception> {
        T run() throws E;
    }
}
