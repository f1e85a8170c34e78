package io.trailproof.stream;

import io.trailproof.index.EventMatcher;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One open stream: what it asks for, its buffer, and where the dispatcher has got to for it.
 *
 * <p>{@link #next} (the first log index not yet considered) is read and written by the dispatcher
 * thread only; it is what makes the switch from catch-up to live exact: an event is offered when
 * its index is {@code >= next}, and {@code next} then moves past it.
 */
final class Subscription {

    private final EventMatcher matcher;
    private final EventBuffer buffer;
    private final AtomicBoolean released = new AtomicBoolean();
    private final Runnable onRelease;
    private final Runnable onDrained;
    private volatile Transport transport;

    /** Dispatcher thread only. */
    long next;

    /** Set by the dispatcher: the stream is behind the live edge, so a drained buffer should wake it. */
    volatile boolean catchingUp;

    Subscription(EventMatcher matcher, long from, int capacity, Runnable onDrained, Runnable onRelease) {
        this.matcher = matcher;
        this.onDrained = onDrained;
        this.next = from;
        this.buffer = new EventBuffer(capacity);
        this.onRelease = onRelease;
    }

    EventMatcher matcher() {
        return matcher;
    }

    EventBuffer buffer() {
        return buffer;
    }

    Transport transport() {
        return transport;
    }

    void attach(Transport t) {
        this.transport = t;
    }

    /** The transport has written everything it was given: a catching-up stream wants more. */
    void drained() {
        if (catchingUp) {
            onDrained.run();
        }
    }

    void wakeTransport() {
        Transport t = transport;
        if (t != null) {
            t.wake();
        }
    }

    /** The connection is finished (closed, failed or never opened): frees its place, once. */
    void release() {
        buffer.end(new Ending.Gone());
        if (released.compareAndSet(false, true)) {
            onRelease.run();
        }
    }

    boolean released() {
        return released.get();
    }
}
