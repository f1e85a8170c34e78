package io.trailproof.otlp;

/**
 * A span that cannot become an event (src/site/ingestion.md#otlp): its ids are malformed, a value cannot be
 * stored faithfully, or its event breaks a rule of src/site/events.md#accepted-fields. The span alone is refused; the
 * message is one sentence a person can act on and becomes the {@code partial_success} error.
 */
public final class SpanRejected extends Exception {
    private static final long serialVersionUID = 1L;

    public SpanRejected(String message) {
        super(message, null, false, false);
    }
}
