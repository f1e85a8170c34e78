package io.trailproof.ledger;

/**
 * A keyed write was refused because the dedupe keys recorded before the start are not all loaded yet
 * ({@link DedupeTable}): the key might be a duplicate, so nothing was claimed or stored, and the
 * client should retry shortly. Writes without a key are not refused.
 */
public final class DedupeLoadingException extends LedgerUnavailableException {
    public DedupeLoadingException(String message) {
        super(message, null);
    }
}
