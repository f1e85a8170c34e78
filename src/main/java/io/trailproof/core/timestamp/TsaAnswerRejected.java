package io.trailproof.core.timestamp;

/** A TSA's answer that the service does not accept (src/site/timestamps.md#request); the message says why, for a person. */
public final class TsaAnswerRejected extends Exception {
    public TsaAnswerRejected(String message) {
        super(message);
    }

    public TsaAnswerRejected(String message, Throwable cause) {
        super(message, cause);
    }
}
