package io.trailproof.checkpoint;

import io.trailproof.background.BackgroundThread;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Signs a checkpoint every {@code checkpoint.interval} when the durable tree grew (src/site/checkpoints.md), so
 * the served checkpoint lags the log by at most about one interval. Runs on its own daemon thread; a
 * failure (a full disk) is logged and tried again at the next tick, and never stops the service.
 *
 * <p>Signing reads no clock: a checkpoint carries no time. The interval is the executor's.
 */
public final class CheckpointScheduler implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(CheckpointScheduler.class.getName());

    private final CheckpointService service;
    private final Duration interval;
    private final BackgroundThread thread = new BackgroundThread("trailproof-checkpoint");

    private volatile Consumer<Boolean> outcomes = ok -> { };

    public CheckpointScheduler(CheckpointService service, Duration interval) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException("checkpoint.interval must be positive");
        }
        this.service = service;
        this.interval = interval;
    }

    /** Signs at once (so a fresh log has its size-0 checkpoint), then every interval. */
    public void start() {
        thread.executor().scheduleWithFixedDelay(this::runOnce, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Registers what is told each signing attempt's outcome (metrics): true when a new checkpoint was
     * signed and stored, false when signing failed. It must return at once.
     */
    public void onOutcome(Consumer<Boolean> listener) {
        this.outcomes = listener;
    }

    private void runOnce() {
        try {
            if (service.signIfGrown().isPresent()) {
                outcomes.accept(true);
            }
        } catch (Throwable t) {
            outcomes.accept(false);
            LOG.log(System.Logger.Level.WARNING, "signing a checkpoint failed, trying again in " + interval + ": " + t);
        }
    }

    /** Stops: interrupts a run in flight and waits for it (see {@link BackgroundThread#close}). */
    @Override
    public void close() {
        thread.close();
    }
}
