package io.trailproof.http;

import java.util.concurrent.TimeUnit;

/**
 * The request bytes being received, parsed and sealed at once, across all requests
 * ({@code limits.max-in-flight-bytes}). A request's weight is its body bytes, counted as they
 * arrive, raised once a batch is parsed to at least {@link #WEIGHT_PER_EVENT} per event (small
 * events cost more heap than their bytes say); it is held until the answer has been sent. Load
 * beyond the budget waits for a moment and is then refused with a 503, so memory stays bounded
 * whatever clients send instead of ending in an {@code OutOfMemoryError}.
 *
 * <p>Thread-safe; {@link #tryTake} never blocks (I/O threads use it), {@link #take} waits.
 */
final class InFlightBudget {

    /**
     * Heap a request takes per byte of weight while it is parsed and sealed, measured on 10,000-event
     * batches of ~450-byte events: the body (1x), its JSON tree (6.6x), the validated events (1.6x),
     * the sealed events and outcomes (5.4x) and the answer (1.1x) come to about 15.7x.
     */
    static final int HEAP_PER_WEIGHT_BYTE = 16;

    /**
     * Weight of one event of a batch at least: 10,000 events of 19 bytes took about 2 KB of heap each
     * (tree, validated copy, sealed payload with id, time and hashes), 125 bytes of weight at
     * {@link #HEAP_PER_WEIGHT_BYTE}; rounded up.
     */
    static final int WEIGHT_PER_EVENT = 160;

    /** Share of the maximum heap the automatic budget lets requests take; the rest is the index buffer, the ledger's tables and room for the collector. */
    static final double HEAP_SHARE = 3.0 / 8;

    private final long capacity;
    private long held;

    InFlightBudget(long capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the in-flight budget must be positive, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** {@code configured} (limits.max-in-flight-bytes) when set, else sized from this JVM's maximum heap. */
    static InFlightBudget of(long configured) {
        return new InFlightBudget(configured > 0 ? configured : fromHeap(Runtime.getRuntime().maxMemory()));
    }

    /** The automatic budget for a heap of {@code maxHeapBytes}: 6 MiB of request bytes at 256 MiB. */
    static long fromHeap(long maxHeapBytes) {
        return Math.max(1 << 20, (long) (maxHeapBytes * HEAP_SHARE) / HEAP_PER_WEIGHT_BYTE);
    }

    long capacity() {
        return capacity;
    }

    /** Whether a request of this weight could ever be admitted (if not, it is a 413). */
    boolean fits(long weight) {
        return weight <= capacity;
    }

    /** Takes {@code weight} if it is free now. */
    synchronized boolean tryTake(long weight) {
        if (held + weight > capacity) {
            return false;
        }
        held += weight;
        return true;
    }

    /** Takes {@code weight}, waiting up to {@code millis} for it to become free; false when it did not. */
    synchronized boolean take(long weight, long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (held + weight > capacity) {
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        held += weight;
        return true;
    }

    synchronized void give(long weight) {
        held -= weight;
        notifyAll();
    }

    synchronized long held() {
        return held;
    }
}
