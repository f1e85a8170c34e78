package io.trailproof.llmgateway;

import java.time.Duration;

/** Counts the calls being passed through, so that stopping can wait for them. */
final class InFlight {

    private int calls;

    synchronized void enter() {
        calls++;
    }

    synchronized void leave() {
        calls--;
        if (calls == 0) {
            notifyAll();
        }
    }

    /** Waits until no call is in flight or {@code limit} has passed; true when none is. */
    synchronized boolean awaitNone(Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (calls > 0) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }
}
