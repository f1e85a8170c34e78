package io.trailproof.index;

/** The index cannot answer now (catching up with the log, being rebuilt, or closed); the message says which. */
public final class IndexUnavailableException extends Exception {
    public IndexUnavailableException(String message) {
        super(message, null, false, false);
    }
}
