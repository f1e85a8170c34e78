package io.trailproof.ledger;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Who is told that the ledger's readable size may have grown ({@link Ledger#onSizeAdvanced}). A
 * listener that throws is logged and the others are still told: a reader never fails a write.
 */
final class SizeListeners {

    /** Under the ledger's name: the warning is the ledger's. */
    private static final System.Logger LOG = System.getLogger(Ledger.class.getName());

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    void add(Runnable listener) {
        listeners.add(listener);
    }

    /** Runs every listener on the calling thread (the one that made the events readable). */
    void advanced() {
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "a size listener failed: " + e);
            }
        }
    }
}
