package io.trailproof.core.evidence;

import io.trailproof.core.evidence.CheckResult.Outcome;

/**
 * The failures of one check over a package: the evidence of the first (event, expected, actual and
 * what it means) and how many items failed, which the report states as "n items failed this check;
 * the first is shown".
 */
final class Tally {
    private final EvidenceCheck check;
    private Long sequence;
    private String eventId;
    private String expected;
    private String actual;
    private String detail;
    private long failures;

    Tally(EvidenceCheck check) {
        this.check = check;
    }

    void fail(Long sequence, String eventId, String expected, String actual, String detail) {
        if (failures++ == 0) {
            this.sequence = sequence;
            this.eventId = eventId;
            this.expected = expected;
            this.actual = actual;
            this.detail = detail;
        }
    }

    boolean failed() {
        return failures > 0;
    }

    /** Failed with the first failure's evidence, or passed with {@code passedDetail}. */
    CheckResult result(String passedDetail) {
        return failed() ? new CheckResult(check, Outcome.FAILED, sequence, eventId, expected, actual,
                failures > 1 ? detail + " (" + failures + " items failed this check; the first is shown)" : detail,
                failures) : CheckResult.passed(check, passedDetail);
    }
}
