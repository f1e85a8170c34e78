package io.trailproof.index;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongUnaryOperator;

/**
 * Requests waiting for the index to hold a number of events, each parked as a future instead of a
 * thread (requests waiting for a stalled index must not take the threads that
 * ingestion needs). Bounded: {@link #park} refuses beyond {@code max}. Whoever sees the index grow
 * calls {@link #release}; a parked future is completed outside the lock, so what follows it runs
 * on the releasing thread and must only hand work on.
 */
final class ParkedRequests {

    private record Parked(long target, CompletableFuture<Void> ready) {
    }

    private final int max;
    private final List<Parked> parked = new ArrayList<>();
    private boolean closed;

    ParkedRequests(int max) {
        this.max = max;
    }

    int max() {
        return max;
    }

    /**
     * A future completed once {@link #release} reports at least {@code target} events, failed at
     * {@link #close}; null when {@code max} requests are parked already.
     */
    synchronized CompletableFuture<Void> park(long target) {
        if (closed) {
            return CompletableFuture.failedFuture(new IndexUnavailableException("the service is shutting down"));
        }
        if (parked.size() >= max) {
            return null;
        }
        Parked p = new Parked(target, new CompletableFuture<>());
        parked.add(p);
        return p.ready();
    }

    /**
     * Completes every request the index now covers: those whose target, as {@code waitFor} maps it
     * (to leave out records no read waits for), is at most {@code indexed}.
     */
    void release(long indexed, LongUnaryOperator waitFor) {
        List<Parked> ready = new ArrayList<>();
        synchronized (this) {
            parked.removeIf(p -> waitFor.applyAsLong(p.target()) <= indexed && ready.add(p));
        }
        for (Parked p : ready) {
            p.ready().complete(null);
        }
    }

    /** Drops a request that stopped waiting (timed out). */
    synchronized void forget(CompletableFuture<Void> ready) {
        parked.removeIf(p -> p.ready() == ready);
    }

    /** Fails every parked request, and every later one at once. */
    void close() {
        List<Parked> abandoned;
        synchronized (this) {
            closed = true;
            abandoned = new ArrayList<>(parked);
            parked.clear();
        }
        for (Parked p : abandoned) {
            p.ready().completeExceptionally(new IndexUnavailableException("the service is shutting down"));
        }
    }
}
