package io.trailproof.erasure;

import io.trailproof.core.retention.RetentionPeriod;
import io.trailproof.ledger.LedgerErasures;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
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
    /** Executors of passes cancelled by {@link #pause}, whose running pass {@link #close} waits for. */
    private final List<ScheduledExecutorService> paused = new ArrayList<>();

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
            LOG.log(System.Logger.Level.INFO, "retention: erased the content of " + out.get().erased().count()
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
     * logged and retried at the next. Does nothing while started already.
     */
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
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

    /** How a cluster node takes part in choosing the one node that runs the cluster's scheduled work. */
    @FunctionalInterface
    public interface Leadership {
        /** {@code lead} runs when this node is chosen, {@code unlead} when it is not any more; neither may block long. */
        void join(Runnable lead, Runnable unlead) throws InterruptedException;
    }

    /**
     * Cluster mode (src/site/erasure.md#cluster-mode): the passes run on the node chosen to run the
     * cluster's scheduled work only, so the cluster records one erasure per pass, not one per node.
     * A node chosen runs a pass at once, then every {@link #EVERY}.
     */
    public void startWhileLeading(Leadership leadership) throws InterruptedIOException {
        try {
            leadership.join(this::start, this::pause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while joining the cluster's scheduler group");
        }
    }

    /**
     * Cancels the next passes without waiting for a running one (a pass of a node that stops leading
     * may finish: a second pass of the cluster finds nothing left to erase and records nothing).
     */
    public synchronized void pause() {
        if (executor != null) {
            executor.shutdown();
            paused.add(executor);
            executor = null;
        }
    }

    /** Cancels the next passes and waits (up to a minute) for a running one; an unfinished one is completed at the next start. */
    @Override
    public synchronized void close() {
        pause();
        try {
            for (ScheduledExecutorService e : paused) {
                if (!e.awaitTermination(60, TimeUnit.SECONDS)) {
                    LOG.log(System.Logger.Level.WARNING, "a retention pass is still running; the next start completes it");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        paused.clear();
    }
}
