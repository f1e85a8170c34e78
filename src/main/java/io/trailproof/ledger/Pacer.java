package io.trailproof.ledger;

import java.io.InterruptedIOException;
import java.util.function.LongSupplier;

/**
 * Spaces background work out so that it takes at most a share of one core: after each slice of
 * work it sleeps long enough that work / (work + sleep) is the share. On 2 cores a re-verification
 * of every chain at full speed takes a core for tens of seconds at a million events (every hash
 * recomputed), and whatever the other core serves meanwhile waits for the scheduler: the periodic
 * check need not be fast, the answers beside it must stay quick.
 *
 * <p>Work is measured in elapsed time, so time the thread spent waiting for a core counts as
 * work and the pace errs on the slow side. Not thread-safe: one pacer per walk.
 */
public final class Pacer {

    /** Sleeps; {@link Thread#sleep} in the service, a recorder in tests. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(long nanos) throws InterruptedException;
    }

    /** Work between two sleeps: long enough that the sleeps cost nothing, short enough that no answer waits long. */
    static final long SLICE_NANOS = 5_000_000;

    private static final Pacer UNPACED = new Pacer(1.0, () -> 0, n -> { });

    private final double share;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private long sliceStart;

    /**
     * @param share of one core the work may take, in (0, 1]; 1 never sleeps
     * @param nanoTime a monotonic clock in nanoseconds
     */
    public Pacer(double share, LongSupplier nanoTime, Sleeper sleeper) {
        if (!(share > 0 && share <= 1)) {
            throw new IllegalArgumentException("the share must be in (0, 1], not " + share);
        }
        this.share = share;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
        this.sliceStart = nanoTime.getAsLong();
    }

    /** A pacer that never sleeps: for work someone waits for (an API request). */
    public static Pacer unpaced() {
        return UNPACED;
    }

    /**
     * Called between units of work. Once a slice of work is done, sleeps for its share of idle time.
     *
     * @throws InterruptedIOException when interrupted while sleeping (the service is stopping)
     */
    void pace() throws InterruptedIOException {
        if (share >= 1) {
            return;
        }
        long worked = nanoTime.getAsLong() - sliceStart;
        if (worked < SLICE_NANOS) {
            return;
        }
        try {
            sleeper.sleep((long) (worked * (1 - share) / share));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("paced work interrupted");
        }
        sliceStart = nanoTime.getAsLong();
    }
}
