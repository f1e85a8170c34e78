package io.trailproof.erasure;

import io.trailproof.core.retention.RetentionPeriod;
import io.trailproof.ledger.LedgerErasures;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Retention of event content (src/site/erasure.md#retention): at start and then once a day, erases
 * the content of every event recorded longer ago than {@code retention.content-after}, as one
 * erasure event per pass with reason {@code retention}. A pass that finds nothing to erase records
 * nothing. Erasure events are never erased. The integrity fields stay; the tree never shrinks.
 */
public final class RetentionSchedule implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(RetentionSchedule.class.getName());
    /** Time between passes. */
    public static final Duration EVERY = Duration.ofDays(1);

    private final ErasureService erasures;
    private final RetentionPeriod period;
    private final Clock clock;
    private ScheduledExecutorService executor;

    public RetentionSchedule(ErasureService erasures, RetentionPeriod period, Clock clock) {
        this.erasures = erasures;
        this.period = period;
        this.clock = clock;
    }

    /**
     * One pass now: erases the content of the events recorded before {@code period} ago (by the
     * clock). Empty when there was nothing to erase.
     */
    public Optional<LedgerErasures.ErasureOutcome> pass() throws IOException {
        Instant cutoff = period.cutoff(clock.instant());
        Optional<LedgerErasures.ErasureOutcome> out = erasures.eraseRecordedBefore(cutoff, period.toString());
        if (out.isPresent()) {
            LOG.log(System.Logger.Level.INFO, "retention: erased the content of " + out.get().erased().size()
                    + " events recorded before " + cutoff + " (erasure " + out.get().erasure().id() + " at log index "
                    + out.get().erasure().logIndex() + ")");
        } else {
            LOG.log(System.Logger.Level.DEBUG, "retention: no event recorded before " + cutoff + " left to erase");
        }
        return out;
    }

    /**
     * Runs a pass now and then every {@link #EVERY}, on a thread of its own that is never
     * interrupted (an interrupt would close the log's file channels mid-rewrite); a failed pass is
     * logged and retried at the next.
     */
    public synchronized void start() {
        executor = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "trailproof-retention");
            t.setDaemon(true);
            return t;
        });
        executor.scheduleWithFixedDelay(() -> {
            try {
                pass();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "retention pass failed (the next one retries): " + e);
            }
        }, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Cancels the next passes and waits (up to a minute) for a running one; an unfinished one is completed at the next start. */
    @Override
    public synchronized void close() {
        if (executor == null) {
            return;
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(60, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "a retention pass is still running; the next start completes it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
