package io.trailproof.server;

import io.trailproof.background.Pacer;
import io.trailproof.config.Settings;
import io.trailproof.ledger.Ledger;
import io.trailproof.metrics.ServiceMetrics;

import java.io.InterruptedIOException;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The background re-verification of every chain: now, then every verify.interval (once only when it is
 * 0), on a daemon thread of its own paced to hardening.verify-cpu-share. A failed pass is logged; the
 * next one tries again.
 */
final class ChainVerification implements AutoCloseable {

    /** The service's logger, as before this class was split out of it: operators filter the line by its name. */
    private static final System.Logger LOG = System.getLogger(TrailproofServer.class.getName());

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "trailproof-verify");
        t.setDaemon(true);
        return t;
    });

    /** @param metrics told each pass's outcome, or null when metrics.enabled is false */
    static ChainVerification start(Settings settings, Ledger ledger, ServiceMetrics metrics, Clock clock) {
        ChainVerification verification = new ChainVerification();
        Runnable verifyAll = () -> {
            try {
                long started = System.nanoTime();
                long valid = ledger.verifyAll(new Pacer(settings.hardening().verifyCpuShare(), System::nanoTime,
                        Pacer.SLEEP));
                long agents = ledger.agents().size();
                if (metrics != null) {
                    metrics.verified(Math.max(0, agents - valid), clock.millis());
                }
                LOG.log(System.Logger.Level.INFO, "re-verified every chain: " + valid + " of " + agents
                        + " valid (" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms)");
            } catch (InterruptedIOException e) {
                // the service is stopping: the next start verifies again
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "chain re-verification failed: " + e);
            }
        };
        long interval = settings.verifyInterval().toMillis();
        if (interval > 0) {
            verification.executor.scheduleWithFixedDelay(verifyAll, 0, interval, TimeUnit.MILLISECONDS);
        } else {
            verification.executor.execute(verifyAll);
        }
        return verification;
    }

    /** Interrupts a pass in flight (it ends with an InterruptedIOException) and runs no other. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
