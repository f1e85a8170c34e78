package io.trailproof.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Waiting on a condition instead of a fixed sleep: returns as soon as the condition holds (polled
 * every few milliseconds), so a test is as quick as the machine allows and still holds on a loaded
 * one; fails with what was awaited when the time is up.
 */
public final class Await {

    private static final long POLL_MILLIS = 10;

    private Await() {
    }

    /** Waits until {@code condition} holds, at most {@code timeout}; an {@link AssertionError} naming {@code what} otherwise. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        try {
            untilTrue(what, timeout, condition::getAsBoolean);
        } catch (InterruptedException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);   // a BooleanSupplier throws no checked exception
        }
    }

    /** As {@link #until(String, Duration, BooleanSupplier)}, for a condition that may throw (e.g. an HTTP call). */
    public static void untilTrue(String what, Duration timeout, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting until " + what);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }
}
