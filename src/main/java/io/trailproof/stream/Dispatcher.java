package io.trailproof.stream;

import io.trailproof.index.CandidateEvent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The one thread that feeds every stream. It wakes when the readable size grows (or a stream
 * arrives, or a catching-up stream's buffer drained), reads each new event from the log once,
 * offers it to every live stream whose filter it matches, and hands it to their buffers. Ingestion
 * only ever unparks this thread; it never waits for it or for any connection.
 *
 * <p><b>Exactly once, in order, without a gap.</b> Every stream has a cursor ({@link Subscription#next});
 * only this thread moves it. The live edge ({@code dispatched}) is how far new events have been
 * offered. A stream whose cursor is at or past the edge is live and is offered each new event at or
 * past its cursor; one behind the edge catches up by reading the log from its cursor, at most half
 * its buffer at a time (so catch-up never overflows), until its cursor reaches the edge and it is
 * live. Both move the cursor past what they considered, so no event is offered twice or skipped.
 *
 * <p><b>Overflow.</b> A live event that finds a stream's buffer full ends that stream
 * ({@link EventBuffer#overflow}); the others go on.
 */
final class Dispatcher {

    private static final System.Logger LOG = System.getLogger(Dispatcher.class.getName());

    /** Events read from the log per step, live or for one catching-up stream. */
    static final int CHUNK = 1024;
    /** Longest sleep without a signal: a safety net, the size listener wakes it first. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final EventSource source;
    private final ConcurrentLinkedQueue<Subscription> arrivals = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean closed;

    // Dispatcher thread only.
    private final List<Subscription> subscriptions = new ArrayList<>();
    private long dispatched;

    Dispatcher(EventSource source) {
        this.source = source;
        this.dispatched = source.size();
        this.thread = Thread.ofPlatform().name("trailproof-stream").daemon().unstarted(this::run);
        source.onSizeAdvanced(this::wake);
    }

    void start() {
        thread.start();
    }

    /** Adds a stream; its cursor must not be beyond the readable size. */
    void add(Subscription s) {
        s.catchingUp = true; // until the first step says otherwise: a drained buffer wakes this thread
        arrivals.add(s);
        wake();
    }

    /** Non-blocking: makes the thread take a step soon. Safe from any thread, ingestion's included. */
    void wake() {
        if (!signalled.getAndSet(true)) {
            LockSupport.unpark(thread);
        }
    }

    /** Ends every stream with {@link Ending.Shutdown} and stops the thread; waits up to {@code millis} for it. */
    void close(long millis) throws InterruptedException {
        closed = true;
        wake();
        thread.join(millis);
    }

    private void run() {
        while (!closed) {
            signalled.set(false);
            boolean progress;
            try {
                progress = step();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "live stream: reading the log failed; retrying in a second", e);
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
                continue;
            }
            if (!progress && !signalled.get()) {
                LockSupport.parkNanos(this, POLL_NANOS);
            }
        }
        for (Subscription s; (s = arrivals.poll()) != null; ) {
            subscriptions.add(s);
        }
        for (Subscription s : subscriptions) {
            s.buffer().end(new Ending.Shutdown());
            s.wakeTransport();
        }
        subscriptions.clear();
    }

    /** One round: new streams, new live events, catch-up reads. True when there may be more to do at once. */
    boolean step() throws IOException {
        for (Subscription s; (s = arrivals.poll()) != null; ) {
            subscriptions.add(s);
        }
        subscriptions.removeIf(s -> s.buffer().ending() != null);
        boolean progress = false;
        long size = source.size();
        if (dispatched < size) {
            long end = Math.min(size, dispatched + CHUNK);
            live(end);
            dispatched = end;
            progress = true;
        }
        for (Subscription s : subscriptions) {
            if (s.next < dispatched && catchUp(s)) {
                progress = true;
            }
            s.catchingUp = s.next < dispatched;
        }
        return progress;
    }

    /**
     * Offers the events {@code [dispatched, end)} to the live streams, reading them once; each
     * stream's matches are handed to its buffer in one batch.
     */
    private void live(long end) throws IOException {
        List<Subscription> live = new ArrayList<>();
        for (Subscription s : subscriptions) {
            if (s.next >= dispatched && s.buffer().ending() == null) {
                live.add(s);
            }
        }
        if (live.isEmpty()) {
            return;
        }
        List<List<Delivery>> matched = new ArrayList<>(live.size());
        for (int i = 0; i < live.size(); i++) {
            matched.add(new ArrayList<>());
        }
        source.scan(dispatched, end, (index, payload) -> {
            CandidateEvent event = new CandidateEvent(index, payload);
            Delivery delivery = null;
            for (int i = 0; i < live.size(); i++) {
                Subscription s = live.get(i);
                if (index < s.next || !matches(s, event)) {
                    continue;
                }
                if (delivery == null) {
                    delivery = new Delivery(index, payload);
                }
                matched.get(i).add(delivery);
            }
        });
        for (int i = 0; i < live.size(); i++) {
            Subscription s = live.get(i);
            s.next = Math.max(s.next, end);
            if (!matched.get(i).isEmpty()) {
                s.buffer().offerAll(matched.get(i));
                s.wakeTransport();
            }
        }
    }

    /**
     * Reads the next events of a catching-up stream into its buffer while it is at most half full.
     * True when it read anything.
     */
    private boolean catchUp(Subscription s) throws IOException {
        EventBuffer buffer = s.buffer();
        int room = Math.max(1, buffer.capacity() / 2) - buffer.size();
        if (room <= 0) {
            return false;
        }
        long from = s.next;
        long end = Math.min(dispatched, from + Math.min(CHUNK, Math.max(room, 64)));
        long[] stop = {end};
        int[] left = {room};
        source.scan(from, end, (index, payload) -> {
            if (index >= stop[0]) {
                return;
            }
            if (!matches(s, new CandidateEvent(index, payload))) {
                return;
            }
            if (left[0] == 0) {
                stop[0] = index; // no room for this one: it is considered again next time
                return;
            }
            buffer.offer(new Delivery(index, payload));
            left[0]--;
        });
        s.next = stop[0];
        if (left[0] < room) {
            s.wakeTransport();
        }
        return s.next > from;
    }

    private static boolean matches(Subscription s, CandidateEvent event) {
        try {
            return s.matcher().matches(event);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "live stream: matching event " + event.logIndex() + " failed; ending "
                    + "that stream", e);
            s.buffer().end(new Ending.Gone());
            s.wakeTransport();
            return false;
        }
    }

    /** Streams the thread serves now (tests). */
    int subscriptionCount() {
        return subscriptions.size();
    }
}
