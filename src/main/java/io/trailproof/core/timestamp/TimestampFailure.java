package io.trailproof.core.timestamp;

/**
 * One failed timestamp check with its evidence: what was expected and what was found (either may
 * be null when there is nothing to compare, e.g. a signature that does not verify).
 */
public record TimestampFailure(TimestampCheck check, String reason, String expected, String actual) {

    /** The sentence shown to a person: {@code message_imprint: <reason>}. */
    public String message() {
        return check.label() + ": " + reason;
    }
}
