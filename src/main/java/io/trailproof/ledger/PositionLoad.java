package io.trailproof.ledger;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * The positions of the snapshotted events, loaded after the start ({@link PositionLoader}): done
 * once every restored agent has them, or failed. Readers that need them wait
 * ({@link AgentState}); nothing else does. Thread-safe.
 */
final class PositionLoad {

    private final CountDownLatch done = new CountDownLatch(1);
    private volatile IOException failure;

    /** True once the load is over, loaded or failed. */
    boolean done() {
        return done.getCount() == 0;
    }

    /** Every restored agent has its positions. */
    void loaded() {
        done.countDown();
    }

    /** The load failed for good: waiting readers get {@code cause}. */
    void failed(IOException cause) {
        failure = cause;
        done.countDown();
    }

    /**
     * Returns once the positions are loaded.
     *
     * @throws IOException when the load failed, or the wait was interrupted
     */
    void await() throws IOException {
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the agents' positions to load", e);
        }
        IOException f = failure;
        if (f != null) {
            throw new IOException("the agents' positions could not be loaded after the start: " + f.getMessage(), f);
        }
    }
}
