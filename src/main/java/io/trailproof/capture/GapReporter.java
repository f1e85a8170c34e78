package io.trailproof.capture;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.capture.CaptureState;
import io.trailproof.core.capture.GapEvents;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Appends a {@code GAP} event for every hole that is due (src/site/completeness.md#gaps): once a
 * second it brings the {@link CaptureTracker} up to the log's end and writes one {@code GAP} per
 * stream with due holes. A write that fails gives its holes back, to be reported at the next tick.
 * In cluster mode only the node that runs the cluster's scheduled work reports
 * ({@link #startWhileLeading}); every node's tracker still follows its log, so a node that takes over
 * knows which holes the log already reports.
 */
public final class GapReporter implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(GapReporter.class.getName());
    /** Time between two looks for due holes. */
    static final Duration TICK = Duration.ofSeconds(1);

    /** How the service appends an event of its own: the ledger in the embedded mode, the topic in cluster mode. */
    @FunctionalInterface
    public interface ServiceWrites {
        /** Stores the event durably, or throws. */
        void append(ObjectNode event) throws IOException;
    }

    /** How a cluster node takes part in choosing the one node that runs the cluster's scheduled work. */
    @FunctionalInterface
    public interface Leadership {
        void join(Runnable lead, Runnable unlead) throws InterruptedException;
    }

    private final CaptureTracker tracker;
    private final ServiceWrites writes;
    private final Clock clock;
    private final long gapAfterMillis;
    /** Never interrupted: a tick reads the log, whose channels an interrupt would close. */
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "trailproof-capture-gaps");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean reporting = true;

    public GapReporter(CaptureTracker tracker, ServiceWrites writes, Clock clock, Duration gapAfter) {
        this.tracker = tracker;
        this.writes = writes;
        this.clock = clock;
        this.gapAfterMillis = gapAfter.toMillis();
    }

    /** Follows the log and reports due holes, once a second. */
    public void start() {
        thread.scheduleWithFixedDelay(this::tickLogged, 0, TICK.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Cluster mode: follows the log on every node, reports only while this node leads the scheduled work. */
    public void startWhileLeading(Leadership leadership) throws InterruptedIOException {
        reporting = false;
        start();
        try {
            leadership.join(() -> reporting = true, () -> reporting = false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while joining the cluster's scheduler group");
        }
    }

    private void tickLogged() {
        try {
            tick();
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "looking for capture gaps failed (the next look retries): " + e);
        }
    }

    /** One look: catch up, then report what is due. Returns how many {@code GAP} events were written. */
    int tick() throws IOException {
        tracker.catchUp();
        if (!reporting) {
            return 0;
        }
        List<CaptureState.Due> due = tracker.due(clock.millis(), gapAfterMillis);
        int written = 0;
        try {
            for (CaptureState.Due d : due) {
                writes.append(GapEvents.of(d, clock.instant()));
                written++;
            }
        } catch (IOException | RuntimeException e) {
            for (CaptureState.Due d : due.subList(written, due.size())) {
                tracker.release(d);
            }
            throw e;
        }
        return written;
    }

    /** Stops looking, then writes the tracker's snapshot. */
    @Override
    public void close() throws IOException {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.log(System.Logger.Level.WARNING, "a look for capture gaps is still running at shutdown");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tracker.close();
    }
}
