package io.trailproof.mcp;

import java.time.Clock;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The proxy's one sequence point, shared by both directions (src/site/mcp-proxy.md#order). A message
 * gets its number, its time and its place in the recording queue together, under one lock, at the end
 * of its JSON value and before its bytes are passed on. So the numbers, the times and the queue agree
 * with each other, and a message the other side sends after reading this one (which it can only read
 * once its bytes were passed on) always gets a later number and a later or equal time.
 *
 * <p>Numbers start at 1 and have no gaps; they are what the proxy records as {@code metadata.proxy_seq}.
 */
final class Sequencer {

    /**
     * A message's place in the session.
     *
     * @param seq its number (from 1, one per message, both directions together)
     * @param at the wall-clock time (the event's {@code timestamp})
     * @param nanos the monotonic time (for durations)
     */
    record Stamp(long seq, Instant at, long nanos) {
    }

    private final Clock clock;
    private final LongSupplier nanoTime;
    private long last;

    /**
     * @param nanoTime a monotonic clock in nanoseconds ({@link System#nanoTime} in the proxy)
     */
    Sequencer(Clock clock, LongSupplier nanoTime) {
        this.clock = clock;
        this.nanoTime = nanoTime;
    }

    /**
     * Takes the next stamp and hands it to {@code then} before any other message can take one: what
     * {@code then} does (queue the message) happens in stamp order. {@code then} must not block.
     */
    synchronized void next(Consumer<Stamp> then) {
        then.accept(next());
    }

    /** Takes the next stamp. */
    synchronized Stamp next() {
        return new Stamp(++last, clock.instant(), nanoTime.getAsLong());
    }
}
