package io.trailproof.ledger;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one place for what is wrong with the ledger while it runs: losses an operator accepted at
 * start ({@code --accept-truncation}), derived files found wrong and rebuilt, and the failure that
 * stopped writes. {@code GET /health} reports {@link #problems()}, and the periodic verification logs
 * them every run, so an accepted loss is never forgotten while the process lives. Thread-safe.
 */
public final class LedgerHealth {

    private static final System.Logger LOG = System.getLogger(LedgerHealth.class.getName());

    private final List<String> problems = new CopyOnWriteArrayList<>();
    private volatile String writeFailure;
    private volatile Throwable writeFailureCause;

    /** Records a problem that lasts until the process ends (it is also logged now). */
    public void report(String problem) {
        problems.add(problem);
        LOG.log(System.Logger.Level.ERROR, problem);
    }

    /** Writes stop for good (until a restart): the first cause is kept, later ones are only logged. */
    void failWrites(String what, Throwable cause) {
        synchronized (this) {
            if (writeFailure == null) {
                writeFailureCause = cause;
                writeFailure = what + ": " + cause + "; writes are refused until the service is restarted";
                LOG.log(System.Logger.Level.ERROR, writeFailure, cause);
                return;
            }
        }
        LOG.log(System.Logger.Level.WARNING, what + " after writes had stopped: " + cause);
    }

    /** True once a failure stopped writes. */
    public boolean writesFailed() {
        return writeFailure != null;
    }

    /** The failure that stopped writes, or null. */
    Throwable writeFailureCause() {
        return writeFailureCause;
    }

    /** Why writes stopped, or null. */
    String writeFailure() {
        return writeFailure;
    }

    /** Every current problem, oldest first; empty when the ledger is healthy. */
    public List<String> problems() {
        List<String> all = new ArrayList<>(problems);
        String f = writeFailure;
        if (f != null) {
            all.add(f);
        }
        return all;
    }
}
