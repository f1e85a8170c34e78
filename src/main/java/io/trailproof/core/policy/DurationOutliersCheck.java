package io.trailproof.core.policy;

/** Built-in {@code duration_outliers}: every {@code TOOL_CALL} with {@code duration_ms} over 60,000 is a violation. */
final class DurationOutliersCheck extends RuleCheck {

    static final long MAX_MS = 60_000;

    DurationOutliersCheck(Rule rule) {
        super(rule);
    }

    @Override
    void accept(PolicyEvent e) {
        if (EventCompletenessCheck.CALL.equals(e.actionType()) && e.durationMs() > MAX_MS) {
            violation(e, "TOOL_CALL " + e.actionName() + " took " + e.durationMs() + " ms (more than 60000 ms)");
        }
    }
}
