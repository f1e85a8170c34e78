package io.trailproof.index;

/** A search query the index refuses: a syntax error (the message says where) or one too costly to run. */
public final class BadQueryException extends Exception {
    public BadQueryException(String message) {
        super(message, null, false, false);
    }
}
