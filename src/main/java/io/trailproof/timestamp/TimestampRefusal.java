package io.trailproof.timestamp;

/** A timestamp request that was not carried out; nothing was stored. The message is for a person. */
public final class TimestampRefusal extends Exception {

    /** Why, which decides the HTTP status (400, 409, 502). */
    public enum Reason {
        /** The TSA URL is not http/https or not on the allow-list. */
        BAD_TSA_URL,
        /** There is nothing to timestamp yet. */
        EMPTY_LOG,
        /** The TSA could not be reached, timed out, or answered something that is not accepted. */
        TSA_FAILED
    }

    private final Reason reason;

    public TimestampRefusal(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
