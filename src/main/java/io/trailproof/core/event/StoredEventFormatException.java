package io.trailproof.core.event;

/**
 * Bytes that do not read back as a stored event: not strict JSON, or missing or mistyped
 * service-assigned fields. Seen by verification and recovery, for a damaged or tampered log.
 */
public final class StoredEventFormatException extends Exception {
    private static final long serialVersionUID = 1L;

    public StoredEventFormatException(String message) {
        super(message);
    }

    public StoredEventFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
