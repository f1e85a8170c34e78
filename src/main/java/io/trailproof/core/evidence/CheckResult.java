package io.trailproof.core.evidence;

import java.util.Locale;

/**
 * The result of one check over a whole package. On failure it carries the evidence of the first
 * failing item: the event (sequence and id, when the failure is about one event), what the check
 * expected and what the package holds, and a sentence saying what that means.
 *
 * @param check    which check
 * @param outcome  passed, failed, or skipped (and why, in {@code detail})
 * @param sequence the sequence of the first failing event, or null
 * @param eventId  the id of the first failing event, or null
 * @param expected what the check expected at the first failure, or null
 * @param actual   what the package holds there, or null
 * @param detail   on success what was covered, on failure what went wrong, on skip why
 * @param failures how many items (events, proofs, timestamps) failed this check
 */
public record CheckResult(EvidenceCheck check, Outcome outcome, Long sequence, String eventId, String expected,
                          String actual, String detail, long failures) {

    public enum Outcome {
        PASSED, FAILED, SKIPPED;

        /** Lowercase name for the JSON report. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static CheckResult passed(EvidenceCheck check, String detail) {
        return new CheckResult(check, Outcome.PASSED, null, null, null, null, detail, 0);
    }

    static CheckResult skipped(EvidenceCheck check, String why) {
        return new CheckResult(check, Outcome.SKIPPED, null, null, null, null, why, 0);
    }

    public boolean failed() {
        return outcome == Outcome.FAILED;
    }
}
