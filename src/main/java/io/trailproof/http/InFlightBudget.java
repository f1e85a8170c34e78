package io.trailproof.http;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The request bytes being received, parsed and sealed at once, across all requests
 * ({@code limits.max-in-flight-bytes}). A request's weight is its body bytes, counted as they
 * arrive, raised once a batch is parsed to at least {@link #WEIGHT_PER_EVENT} per event (small
 * events cost more heap than their bytes say); it is held until the answer has been sent. Load
 * beyond the budget waits for a moment and is then refused with a 503, so memory stays bounded
 * whatever clients send instead of ending in an {@code OutOfMemoryError}.
 *
 * <p>One client address holds at most its share of the budget
 * ({@code limits.max-in-flight-bytes-per-address}, 3/4 of it unless set): one address sending many
 * slow bodies waits for its own share and leaves the rest to other addresses
 * (src/site/security.md#memory). A request larger than the share could never be admitted: a 413.
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

    /**
     * Share of the budget one address may hold unless configured: enough for a lone client to send the
     * largest body the budget allows but a quarter, so that the quarter always stays for others.
     */
    static final double ADDRESS_SHARE = 3.0 / 4;

    private final long capacity;
    private final long perAddress;
    private long held;
    /** Weight held per client address; an address holding nothing has no entry. */
    private final Map<InetAddress, Long> byAddress = new HashMap<>();

    InFlightBudget(long capacity, long perAddress) {
        if (capacity < 1 || perAddress < 1) {
            throw new IllegalArgumentException("the in-flight budget and its share per address must be positive, got "
                    + capacity + " and " + perAddress);
        }
        this.capacity = capacity;
        this.perAddress = Math.min(perAddress, capacity);
    }

    /**
     * {@code configured} (limits.max-in-flight-bytes) when set, else sized from this JVM's maximum heap;
     * {@code configuredPerAddress} (limits.max-in-flight-bytes-per-address) when set, else {@link #ADDRESS_SHARE} of it.
     */
    static InFlightBudget of(long configured, long configuredPerAddress) {
        long capacity = configured > 0 ? configured : fromHeap(Runtime.getRuntime().maxMemory());
        return new InFlightBudget(capacity, configuredPerAddress > 0 ? configuredPerAddress : defaultShare(capacity));
    }

    /** The share of one address unless configured: {@link #ADDRESS_SHARE} of {@code capacity}. */
    static long defaultShare(long capacity) {
        return Math.max(1, (long) (capacity * ADDRESS_SHARE));
    }

    /** The automatic budget for a heap of {@code maxHeapBytes}: 6 MiB of request bytes at 256 MiB. */
    static long fromHeap(long maxHeapBytes) {
        return Math.max(1 << 20, (long) (maxHeapBytes * HEAP_SHARE) / HEAP_PER_WEIGHT_BYTE);
    }

    long capacity() {
        return capacity;
    }

    /** What one address may hold at once. */
    long perAddress() {
        return perAddress;
    }

    /** Whether one request of this weight could ever be admitted (if not, it is a 413). */
    boolean fits(long weight) {
        return weight <= perAddress;
    }

    /** Takes {@code weight} for a request from {@code from} if it is free now, in the budget and in the address's share. */
    synchronized boolean tryTake(InetAddress from, long weight) {
        long mine = byAddress.getOrDefault(from, 0L);
        if (held + weight > capacity || mine + weight > perAddress) {
            return false;
        }
        held += weight;
        byAddress.put(from, mine + weight);
        return true;
    }

    /** As {@link #tryTake}, waiting up to {@code millis} for room; false when none came. */
    synchronized boolean take(InetAddress from, long weight, long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!tryTake(from, weight)) {
            long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Gives back {@code weight} taken for a request from {@code from}. */
    synchronized void give(InetAddress from, long weight) {
        held -= weight;
        long mine = byAddress.getOrDefault(from, 0L) - weight;
        if (mine > 0) {
            byAddress.put(from, mine);
        } else {
            byAddress.remove(from);
        }
        notifyAll();
    }

    synchronized long held() {
        return held;
    }

    /** What {@code from} holds now. */
    synchronized long heldBy(InetAddress from) {
        return byAddress.getOrDefault(from, 0L);
    }
}
