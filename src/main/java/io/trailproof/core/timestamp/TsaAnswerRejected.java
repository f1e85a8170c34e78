package io.trailproof.core.timestamp;

/** A TSA's answer that the service does not accept (src/site/timestamps.md#request); the message says why, for a person. */
public final class TsaAnswerRejected extends Exception {

    /** True when the answer is not an RFC 3161 response at all (rather than a response that breaks a rule). */
    private final boolean notAResponse;

    public TsaAnswerRejected(String message) {
        super(message);
        this.notAResponse = false;
    }

    private TsaAnswerRejected(String message, boolean notAResponse) {
        super(message);
        this.notAResponse = notAResponse;
    }

    /** An answer that does not parse as an RFC 3161 time-stamp response: whatever sent it is not a TSA. */
    public static TsaAnswerRejected notAResponse() {
        return new TsaAnswerRejected("the TSA answered something that is not an RFC 3161 time-stamp response", true);
    }

    public boolean isNotAResponse() {
        return notAResponse;
    }

    public TsaAnswerRejected(String message, Throwable cause) {
        super(message, cause);
        this.notAResponse = false;
    }
}
