package io.trailproof.cluster;

/**
 * The record of a write is larger than the topic takes (Kafka refused it before storing it, so the
 * outcome is known: nothing stored). Only an OTLP export can come near it: its spans grow several
 * times when mapped to events (HTTP 413, send smaller exports).
 */
public final class WriteTooLargeException extends Exception {
    public WriteTooLargeException(String message, Throwable cause) {
        super(message, cause);
    }
}
