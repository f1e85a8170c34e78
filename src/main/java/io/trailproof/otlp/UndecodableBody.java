package io.trailproof.otlp;

/** A request body that is not an OTLP trace export in its declared encoding: the whole request is a 400. */
public final class UndecodableBody extends Exception {
    private static final long serialVersionUID = 1L;

    public UndecodableBody(String message) {
        super(message, null, false, false);
    }
}
