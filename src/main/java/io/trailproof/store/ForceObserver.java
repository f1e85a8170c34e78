package io.trailproof.store;

/**
 * Told about every group-commit force of the log, for metrics. It runs on the sync thread after the
 * force and after its waiters were answered, before the next force: it must return at once (record
 * a number, never block). What it throws is ignored.
 */
@FunctionalInterface
public interface ForceObserver {

    /** Observes nothing (the default). */
    ForceObserver NONE = (nanos, payloads) -> { };

    /**
     * @param nanos    how long the force took
     * @param payloads payloads this force made durable that were not durable before (the group size;
     *                 0 when it covered nothing new)
     */
    void forced(long nanos, long payloads);
}
