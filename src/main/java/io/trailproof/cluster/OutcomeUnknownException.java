package io.trailproof.cluster;

/**
 * Kafka did not confirm a write, or this node did not apply it, within {@code cluster.write-timeout}:
 * the record may still be in the topic and be applied later. Only a retry with the same
 * {@code Idempotency-Key} is safe (HTTP 503).
 */
public final class OutcomeUnknownException extends Exception {
    public OutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
