package io.trailproof.background;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.function.LongSupplier;

/**
 * Spaces long work out so that it takes at most a share of the time: after each slice of work it
 * pauses long enough that work / (work + pause) is the share.
 *
 * <ul>
 *   <li>The periodic re-verification of every chain is always paced: on 2 cores a walk at full speed
 *       takes a core for tens of seconds at a million events, and whatever the other core serves
 *       meanwhile waits for the scheduler. The check need not be fast; the answers beside it must stay
 *       quick.</li>
 *   <li>An erasure is paced only while something else is busy ({@link #whileBusy}): its log rewrite
 *       and index purge give way to ingestion, and run at full speed on an otherwise idle server.</li>
 * </ul>
 *
 * <p>Work is measured in elapsed time, so time the thread spent waiting for a core or the disk
 * counts as work and the pace errs on the slow side. Not thread-safe: one pacer per walk.
 */
public final class Pacer {

    /**
     * What the pacer does instead of working: {@link Thread#sleep} in the simplest case, other work
     * for the same thread (the search index keeps indexing while its purge pauses), a recorder in tests.
     */
    @FunctionalInterface
    public interface Pause {
        void pause(long nanos) throws IOException, InterruptedException;
    }

    /** Work between two pauses: long enough that the pauses cost nothing, short enough that no answer waits long. */
    public static final long SLICE_NANOS = 5_000_000;

    /**
     * A {@link #whileBusy} pacer pauses in steps of at most this, and ends its pause after a step
     * during which the others stood still: the work goes on at full speed as soon as ingestion stops.
     */
    public static final long PAUSE_STEP_NANOS = 50_000_000;

    /** The plain pause: sleeps. */
    public static final Pause SLEEP = nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));

    private static final Pacer UNPACED = new Pacer(1.0, () -> 0, n -> { });

    private final double share;
    private final LongSupplier nanoTime;
    private final Pause pause;
    /** Null: always paces. */
    private final LongSupplier others;
    private long sliceStart;
    private long othersSeen;

    /**
     * A pacer that always paces.
     *
     * @param share of the time the work may take, in (0, 1]; 1 never pauses
     * @param nanoTime a monotonic clock in nanoseconds
     */
    public Pacer(double share, LongSupplier nanoTime, Pause pause) {
        this(share, null, nanoTime, pause);
    }

    private Pacer(double share, LongSupplier others, LongSupplier nanoTime, Pause pause) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("the share must be in (0, 1], not " + share);
        }
        this.share = share;
        this.nanoTime = nanoTime;
        this.pause = pause;
        this.others = others;
        this.sliceStart = nanoTime.getAsLong();
        this.othersSeen = others == null ? 0 : others.getAsLong();
    }

    /**
     * A pacer that pauses after a slice only if {@code others} (a count that grows while other work
     * goes on, e.g. the events the ledger accepted) grew during it; a slice while it stood still
     * runs on at full speed. Its pauses go in steps of {@link #PAUSE_STEP_NANOS} and end early after
     * a step during which {@code others} stood still.
     */
    public static Pacer whileBusy(double share, LongSupplier others, LongSupplier nanoTime, Pause pause) {
        return new Pacer(share, others, nanoTime, pause);
    }

    /** A pacer that never pauses: for work someone waits for with nothing to give way to. */
    public static Pacer unpaced() {
        return UNPACED;
    }

    /**
     * Called between units of work. Once a slice of work is done, pauses for its share of idle time
     * (if others were busy during it).
     *
     * @throws InterruptedIOException when interrupted while pausing (the service is stopping)
     * @throws IOException what the pause threw
     */
    public void pace() throws IOException {
        if (share >= 1) {
            return;
        }
        long worked = nanoTime.getAsLong() - sliceStart;
        if (worked < SLICE_NANOS) {
            return;
        }
        long idle = (long) (worked * (1 - share) / share);
        try {
            if (others == null) {
                pause.pause(idle);
            } else {
                long seen = others.getAsLong();
                while (seen != othersSeen && idle > 0) {
                    othersSeen = seen;
                    long step = Math.min(idle, PAUSE_STEP_NANOS);
                    pause.pause(step);
                    idle -= step;
                    seen = others.getAsLong();
                }
                othersSeen = seen;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("paced work interrupted");
        }
        sliceStart = nanoTime.getAsLong();
    }
}
