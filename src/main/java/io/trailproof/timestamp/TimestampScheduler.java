package io.trailproof.timestamp;

import io.trailproof.background.BackgroundThread;
import io.trailproof.core.timestamp.TimestampRecord;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Scheduled timestamping ({@code timestamp.interval}): every interval, timestamps the root with the
 * default TSA when the tree has grown since the last timestamp. A failure is logged and retried
 * after a backoff that starts at {@code firstRetry} and doubles up to the interval; nothing it does
 * can stop the service. The first run is one interval after the last stored timestamp was
 * requested (at once if that is past), so restarts do not multiply or skip timestamps.
 */
public final class TimestampScheduler implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(TimestampScheduler.class.getName());

    private final TimestampService service;
    private final LongSupplier treeSize;
    private final Duration interval;
    private final Duration firstRetry;
    private final Clock clock;
    private final BackgroundThread thread = new BackgroundThread("trailproof-timestamp");
    private int failures;

    public TimestampScheduler(TimestampService service, LongSupplier treeSize, Duration interval, Duration firstRetry,
                              Clock clock) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("interval must be positive");
        }
        this.service = service;
        this.treeSize = treeSize;
        this.interval = interval;
        this.firstRetry = firstRetry.compareTo(interval) > 0 ? interval : firstRetry;
        this.clock = clock;
    }

    public void start() {
        Duration first = Duration.ZERO;
        try {
            Optional<TimestampRecord> latest = service.latest();
            if (latest.isPresent()) {
                Duration since = Duration.between(Instant.parse(latest.get().requestedAt()), clock.instant());
                first = since.compareTo(interval) >= 0 ? Duration.ZERO : interval.minus(since);
            }
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "cannot read the last timestamp; scheduling from now: " + e);
        }
        schedule(first);
    }

    private void schedule(Duration delay) {
        try {
            thread.executor().schedule(this::runOnce, delay.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closed: the service is stopping
        }
    }

    private void runOnce() {
        Duration next = interval;
        try {
            long size = treeSize.getAsLong();
            long stamped = service.latest().map(TimestampRecord::treeSize).orElse(0L);
            if (size > stamped) {
                TimestampRecord r = service.stamp(null);
                LOG.log(System.Logger.Level.INFO, "timestamped tree size " + r.treeSize() + " (root " + r.merkleRoot()
                        + ") with " + r.tsa() + " at " + r.timestamp());
            }
            failures = 0;
        } catch (Throwable t) {
            failures++;
            next = backoff(failures, firstRetry, interval);
            LOG.log(System.Logger.Level.WARNING, "scheduled timestamp failed (attempt " + failures + "), retrying in "
                    + next + ": " + (t.getMessage() == null ? t.toString() : t.getMessage()));
        }
        schedule(next);
    }

    /** {@code first * 2^(failures - 1)}, at most {@code cap}. */
    static Duration backoff(int failures, Duration first, Duration cap) {
        int shift = Math.min(Math.max(failures - 1, 0), 30);
        Duration d = first.multipliedBy(1L << shift);
        return d.compareTo(cap) > 0 || d.isNegative() ? cap : d;
    }

    /** Stops: interrupts a run in flight and waits for it (see {@link BackgroundThread#close}). */
    @Override
    public void close() {
        thread.close();
    }
}
