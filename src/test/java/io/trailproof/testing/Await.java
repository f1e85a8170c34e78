package io.trailproof.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Waiting on a condition instead of a fixed sleep: returns as soon as the condition holds (polled
 * every few milliseconds), so a test is as quick as the machine allows and still holds on a loaded
 * one; fails with what was awaited when the time is up.
 *
 * <p>The only place the tests pause: {@link #pace} for pauses that are part of a test's load,
 * {@link #nothingHappensWithin} for a check that something does not happen. No other test source
 * sleeps or writes a loop against a deadline ({@code TestSourcesTest} checks it).
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
        if (!within(timeout, condition)) {
            throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting until " + what);
        }
    }

    /**
     * Waits until {@code condition} holds, at most {@code timeout}: true as soon as it does, false when
     * the time is up (checked once more at the end). For callers that report a timeout their own way.
     */
    public static boolean within(Duration timeout, Callable<Boolean> condition) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() - deadline > 0) {
                return condition.call();
            }
            Thread.sleep(POLL_MILLIS);
        }
        return true;
    }

    /**
     * A pause that is part of what a test does, never a wait for the system's state: the pace of a
     * load or of a trickling client, a client's back-off before it retries, a counterpart made slow on
     * purpose (a TSA that hangs, a pump descheduled), the random moment of a kill under load. Anything
     * the test then checks is awaited with {@link #until}; {@code why} says what the pause stands for.
     */
    public static void pace(Duration pause, String why) throws InterruptedException {
        if (why == null || why.isBlank()) {
            throw new IllegalArgumentException("say what the pause stands for");
        }
        Thread.sleep(pause);
    }

    /** The one fixed pause the tests may take (see {@link #nothingHappensWithin}). */
    public static final Duration QUIET_WINDOW = Duration.ofMillis(300);

    /**
     * Waits {@link #QUIET_WINDOW} for something that must <em>not</em> happen (a request a witness
     * must not get, a backup that must keep waiting), where no observable state could say "it will
     * not happen" any sooner. The only fixed pause of the tests: anything that can be waited for as
     * a condition goes through {@link #until} instead. {@code why} names what must stay undone; a
     * test that passes only because the window was too short to see a wrong step is a weaker test,
     * never a flaky one.
     */
    public static void nothingHappensWithin(String why) throws InterruptedException {
        if (why == null || why.isBlank()) {
            throw new IllegalArgumentException("say what must not happen");
        }
        Thread.sleep(QUIET_WINDOW.toMillis());
    }
}
