package io.trailproof.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Group commit for the segment log: the durable size, the threads waiting for it, the one flusher
 * thread that forces on their behalf (everyone waiting during a force shares the next), and the
 * failed state.
 *
 * <p><b>Sync ownership:</b> at most one thread forces at a time ({@link #begin}/{@link #end}); the
 * log also takes it to roll, to close and to roll back after a failure, so that no force runs
 * while bytes it may cover are truncated.
 *
 * <p><b>Failure:</b> {@link #fail} makes the log refuse appends at once, but waiters for data that
 * is not durable are answered only once the failure is {@link #settle settled}, i.e. once the log
 * has made the refused groups absent from disk (or recorded them as refused). A waiter told
 * "failed" therefore never finds its group in the log after a restart.
 */
final class GroupCommit {

    /** What the flusher calls. */
    interface Syncer {
        /** Forces what is written and returns how many payloads are now durable; called with sync ownership. */
        long force() throws IOException;

        /** After a failed force, on the flusher thread and without sync ownership: settles the failure. */
        void settleFailure();
    }

    private static final CompletableFuture<Void> DURABLE = CompletableFuture.completedFuture(null);

    private final Object lock = new Object();
    private final Path dir;
    private final Syncer syncer;
    // Guarded by lock.
    private boolean syncing;
    private final List<Waiter> waiters = new ArrayList<>();
    private Thread flusher;
    private long forceCount;
    private boolean settled;
    private volatile long durable;
    private volatile IOException failure;
    private volatile boolean closed;
    private volatile ForceObserver observer = ForceObserver.NONE;

    GroupCommit(Path dir, long durable, Syncer syncer) {
        this.dir = dir;
        this.durable = durable;
        this.syncer = syncer;
    }

    long durable() {
        return durable;
    }

    /** Replaces the observer of the flusher's forces (metrics). */
    void observe(ForceObserver observer) {
        this.observer = observer;
    }

    IOException failure() {
        return failure;
    }

    boolean closed() {
        return closed;
    }

    long forceCount() {
        synchronized (lock) {
            return forceCount;
        }
    }

    /** Completes once every payload below {@code end} is durable, or exceptionally once that can no longer happen. */
    CompletableFuture<Void> whenDurable(long end) {
        if (durable >= end) {
            return DURABLE;
        }
        Waiter waiter = new Waiter(end, new CompletableFuture<>());
        synchronized (lock) {
            if (durable >= end) {
                return DURABLE;
            }
            if (closed || (failure != null && settled)) {
                return CompletableFuture.failedFuture(refusal());
            }
            waiters.add(waiter);
            if (failure == null) {
                if (flusher == null) {
                    flusher = Thread.ofPlatform().daemon().name("trailproof-sync-" + dir.getFileName()).start(this::flushLoop);
                }
                lock.notifyAll();
            }
        }
        return waiter.done();
    }

    /** Throws the failure, or {@link ClosedChannelException} once closed. */
    void checkUsable() throws IOException {
        IOException f = failure;
        if (f != null) {
            throw new IOException(f.getMessage(), f.getCause());
        }
        if (closed) {
            throw new ClosedChannelException();
        }
    }

    private IOException refusal() {
        IOException f = failure;
        return f != null ? new IOException(f.getMessage(), f.getCause()) : new ClosedChannelException();
    }

    private void flushLoop() {
        while (true) {
            synchronized (lock) {
                while ((waiters.isEmpty() || syncing) && !closed && failure == null) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        // only close and failure stop the flusher
                    }
                }
                if (closed || failure != null) {
                    return;
                }
                syncing = true;
            }
            boolean ok = false;
            try {
                long before = durable;
                long started = System.nanoTime();
                long count = syncer.force();
                // Observed before the new durable size is visible: whoever learns that a write is
                // durable (its client's answer included) finds the force already in the metrics.
                observed(System.nanoTime() - started, Math.max(0, count - before));
                forced(count);
                ok = true;
            } catch (IOException | RuntimeException | Error e) {
                fail(e, e.getMessage());
            } finally {
                end();
            }
            if (!ok) {
                syncer.settleFailure();
                return;
            }
        }
    }

    /** Tells the observer of a completed force, before its waiters learn of it; a failing observer never fails the log. */
    private void observed(long nanos, long covered) {
        try {
            observer.forced(nanos, covered);
        } catch (RuntimeException e) {
            // metrics only: the force itself succeeded
        }
    }

    /** Takes sync ownership, waiting for a running force. */
    void begin() throws InterruptedIOException {
        synchronized (lock) {
            while (syncing) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for the log to sync");
                }
            }
            syncing = true;
        }
    }

    /** {@link #begin} for failure handling, which must not be abandoned because of an interrupt. */
    void beginUninterruptibly() {
        boolean interrupted = false;
        synchronized (lock) {
            while (syncing) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            syncing = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Gives up sync ownership and answers the waiters that can be answered now. */
    void end() {
        synchronized (lock) {
            syncing = false;
            lock.notifyAll();
        }
        releaseWaiters();
    }

    /** Records a completed force that covered the first {@code count} payloads. */
    void forced(long count) {
        synchronized (lock) {
            forceCount++;
            if (count > durable) {
                durable = count;
            }
        }
    }

    /** Enters the failed state (the first failure wins) and returns the failure to throw. */
    IOException fail(Throwable cause, String what) {
        String why = cause.getMessage() == null || what.contains(cause.getMessage()) ? what : what + " (" + cause.getMessage() + ")";
        IOException f = new IOException("log " + dir + " failed: " + why + "; it accepts no more writes until reopened", cause);
        synchronized (lock) {
            if (failure == null) {
                failure = f;
            }
            lock.notifyAll();
            return failure;
        }
    }

    /** Whether the failure was already settled (the refused groups dealt with). */
    boolean settled() {
        synchronized (lock) {
            return settled;
        }
    }

    /** The refused groups are dealt with: waiters not durable now are refused (at the next {@link #end}). */
    void settle() {
        synchronized (lock) {
            settled = true;
        }
    }

    /** Marks the log closed; waiters not durable now are refused and the flusher stops. */
    void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        releaseWaiters();
    }

    private void releaseWaiters() {
        List<Waiter> ready = new ArrayList<>();
        List<Waiter> refused = new ArrayList<>();
        synchronized (lock) {
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (w.end() <= durable) {
                    ready.add(w);
                    it.remove();
                } else if ((failure != null && settled) || closed) {
                    refused.add(w);
                    it.remove();
                }
            }
        }
        ready.forEach(w -> w.done().complete(null));
        if (!refused.isEmpty()) {
            IOException why = refusal();
            refused.forEach(w -> w.done().completeExceptionally(why));
        }
    }

    private record Waiter(long end, CompletableFuture<Void> done) {
    }
}
