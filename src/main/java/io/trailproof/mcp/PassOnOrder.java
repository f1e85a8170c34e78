package io.trailproof.mcp;

import java.util.Comparator;
import java.util.List;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The queue of lines for the recorder, in the order their last bytes were passed on
 * (src/site/mcp-proxy.md#what-is-recorded). Each direction's pump numbers a chunk before passing it
 * on and frames it after; a line takes the number of the chunk that ended it. A client can only act
 * on bytes passed on to it, so the answer it read gets a lower number than the call it sent next,
 * even when the other pump framed the call first: {@link #take} hands out the lowest number, once no
 * pump is still passing on a chunk numbered below it.
 *
 * <p>That wait is bounded by {@link #MAX_WAIT_NANOS} per chunk: a pump blocked writing to a reader
 * that does not read never holds up the recorder (and, through its backlog, the other direction)
 * for longer; its line then keeps the order in which it was framed.
 *
 * @param <T> what a line is
 */
final class PassOnOrder<T> {

    /** Longest the recorder waits for one chunk still being passed on. */
    static final long MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private record Numbered<T>(long chunk, long added, T line) {
    }

    private final long maxWaitNanos;
    private final AtomicLong chunks = new AtomicLong();
    private final AtomicLong added = new AtomicLong();
    private final PriorityBlockingQueue<Numbered<T>> queue = new PriorityBlockingQueue<>(64,
            Comparator.<Numbered<T>>comparingLong(Numbered::chunk).thenComparingLong(Numbered::added));
    private final List<Side> sides = List.of(new Side(), new Side());

    PassOnOrder() {
        this(MAX_WAIT_NANOS);
    }

    /** With another bound on the wait for one chunk (tests). */
    PassOnOrder(long maxWaitNanos) {
        this.maxWaitNanos = maxWaitNanos;
    }

    /** One direction's pump: numbers its chunks. */
    final class Side {
        // The number of the chunk being passed on and framed, or MAX_VALUE between chunks.
        private volatile long passing = Long.MAX_VALUE;
        // The chunk the recorder stopped waiting for (it was too slow to pass on).
        private volatile long givenUp = -1;

        /** Before a chunk is passed on. */
        void begin() {
            passing = chunks.incrementAndGet();
        }

        /** After the chunk was passed on and framed. */
        void end() {
            passing = Long.MAX_VALUE;
        }

        /** A line the chunk being framed ended. */
        void add(T line) {
            queue.add(new Numbered<>(passing, added.incrementAndGet(), line));
        }
    }

    /** The side of one direction: 0 client to server, 1 server to client. */
    Side side(int direction) {
        return sides.get(direction);
    }

    /** The end of the session: {@link #take} returns null once every line before it was taken. */
    void end() {
        queue.add(new Numbered<>(Long.MAX_VALUE, Long.MAX_VALUE, null));
    }

    /** The next line in pass-on order, or null at the end. */
    T take() throws InterruptedException {
        while (true) {
            Numbered<T> first = queue.take();
            if (first.line() == null) {
                return null;
            }
            for (Side s : sides) {
                awaitPassedOn(s, first.chunk());
            }
            Numbered<T> next = queue.peek();
            if (next != null && next.chunk() < first.chunk()) {
                queue.add(first);   // a line passed on earlier was framed meanwhile: it goes first
                continue;
            }
            return first.line();
        }
    }

    private void awaitPassedOn(Side s, long chunk) throws InterruptedException {
        long deadline = System.nanoTime() + maxWaitNanos;
        long p;
        while ((p = s.passing) < chunk && p != s.givenUp) {
            if (System.nanoTime() - deadline > 0) {
                s.givenUp = p;
                return;
            }
            LockSupport.parkNanos(20_000);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }
}
