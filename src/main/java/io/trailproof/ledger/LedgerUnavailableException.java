package io.trailproof.ledger;

import java.io.IOException;

/** The ledger cannot accept writes now (storage failed, or it is closing); nothing of the request was acknowledged. */
public final class LedgerUnavailableException extends IOException {
    public LedgerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
