package io.trailproof.http;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts requests in flight so a stop can let them finish. Once {@link #drain} is called, a new
 * request gets a 503 with {@code Retry-After} and the usual {@code {"error"}} body (src/site/http-api.md#conventions).
 */
final class Draining implements HttpHandler {

    /** Seconds a client is told to wait: long enough for a restart. */
    static final String RETRY_AFTER_SECONDS = "10";

    private final HttpHandler next;
    private final AtomicLong active = new AtomicLong();
    private final Object idle = new Object();
    private volatile boolean draining;

    Draining(HttpHandler next) {
        this.next = next;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        active.incrementAndGet();
        if (draining) {
            finished();
            Responses.problem(ex, new ApiException(503, "the service is shutting down; retry in a few seconds",
                    Map.of("Retry-After", RETRY_AFTER_SECONDS)));
            return;
        }
        ex.addExchangeCompleteListener((e, nextListener) -> {
            finished();
            nextListener.proceed();
        });
        next.handleRequest(ex);
    }

    /** Requests taken in and not yet answered. */
    long inFlight() {
        return active.get();
    }

    /** From now on new requests are refused; those in flight go on. */
    void drain() {
        draining = true;
    }

    /** Waits until no request is in flight or the time is up; true when none is left. */
    boolean awaitIdle(long millis) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (idle) {
            while (active.get() > 0) {
                long left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                idle.wait(left);
            }
            return true;
        }
    }

    private void finished() {
        if (active.decrementAndGet() == 0) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }
}
