package io.trailproof.ledger;

import java.io.IOException;

/**
 * The ledger cannot accept writes now (storage failed, the sequencer failed, it is closing, or it is
 * too busy: {@link LedgerBusyException}); nothing of the request was acknowledged.
 */
public class LedgerUnavailableException extends IOException {
    public LedgerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
