package io.trailproof.background;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The one daemon thread a scheduled background task runs on (signing checkpoints, scheduled
 * timestamps), and its end: {@link #close} interrupts a run in flight, starts no other, and waits a
 * bounded time for it to finish, so the service closes what the task uses only after it stopped.
 * Daemon: a task never keeps the process alive.
 */
public final class BackgroundThread implements AutoCloseable {

    /** How long {@link #close} waits for a run in flight to end. */
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final ScheduledExecutorService executor;

    /** @param name the thread's name, as thread dumps and logs show it */
    public BackgroundThread(String name) {
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Where the task is scheduled; it refuses new work once closed. */
    public ScheduledExecutorService executor() {
        return executor;
    }

    /** Interrupts a run in flight, cancels the scheduled ones and waits (up to 10 s) for the thread to end. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
