package io.trailproof.ledger;

/**
 * The single-event queue is full ({@link LedgerOptions#maxQueuedEvents()} events wait for the
 * sequencer): the event was refused at once, nothing was stored, and the client should retry later.
 */
public final class LedgerBusyException extends LedgerUnavailableException {
    public LedgerBusyException(int queued) {
        super("too many events are waiting to be stored (" + queued + " queued); retry shortly", null);
    }
}
