package io.trailproof.stream;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The bounded queue between the dispatcher (the one producer) and a connection's transport (the one
 * consumer), and the connection's {@link Ending}. Only matching events count toward the capacity;
 * the producer never waits: a full buffer ends the stream with {@link Ending.Overflow}, whose resume
 * point is the oldest event not yet taken by the transport. Thread-safe.
 */
final class EventBuffer {

    private final int capacity;
    private final ArrayDeque<Delivery> queue = new ArrayDeque<>();
    private Ending ending;

    EventBuffer(int capacity) {
        this.capacity = capacity;
    }

    int capacity() {
        return capacity;
    }

    /** Queues {@code d}; false when the buffer is full or the stream has ended (nothing is queued). */
    synchronized boolean offer(Delivery d) {
        if (ending != null || queue.size() >= capacity) {
            return false;
        }
        queue.addLast(d);
        return true;
    }

    /**
     * Queues {@code batch} in order, as far as there is room; when one does not fit, the stream ends
     * with {@link #overflow} at it and the rest are dropped. Returns false when the stream has ended
     * (before or by this call). One lock for the whole batch: the dispatcher hands over a chunk at once.
     */
    synchronized boolean offerAll(List<Delivery> batch) {
        if (ending != null) {
            return false;
        }
        for (Delivery d : batch) {
            if (queue.size() >= capacity) {
                overflow(d.logIndex());
                return false;
            }
            queue.addLast(d);
        }
        return true;
    }

    /**
     * Ends the stream because {@code refused} (a matching event) found the buffer full: the queued
     * events are dropped and the resume point is the oldest of them, or {@code refused} itself.
     */
    synchronized Ending.Overflow overflow(long refused) {
        long resumeFrom = queue.isEmpty() ? refused : queue.peekFirst().logIndex();
        queue.clear();
        Ending.Overflow o = new Ending.Overflow(resumeFrom);
        if (ending == null) {
            ending = o;
        }
        return o;
    }

    /** Ends the stream for {@code why} unless it has ended already; queued events are dropped. */
    synchronized void end(Ending why) {
        if (ending == null) {
            ending = why;
            queue.clear();
        }
    }

    /** Up to {@code max} queued events, oldest first, removed from the buffer. */
    synchronized List<Delivery> take(int max) {
        int n = Math.min(max, queue.size());
        List<Delivery> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(queue.pollFirst());
        }
        return out;
    }

    synchronized int size() {
        return queue.size();
    }

    /** Null while the stream goes on. */
    synchronized Ending ending() {
        return ending;
    }
}
