package io.trailproof.core.policy;

import java.util.List;

/**
 * The running state of one rule over one pass of the trail in log order. {@link #accept} sees, in
 * log order, every event the check covers that passes the rule's label filter; {@link #finish}
 * is called once after the last. State is kept per scope (or per pending event), never per event
 * seen, so that memory does not grow with the length of the trail.
 */
abstract class RuleCheck {

    final Rule rule;
    private final ExampleList examples = new ExampleList();
    private long violations;

    RuleCheck(Rule rule) {
        this.rule = rule;
    }

    abstract void accept(PolicyEvent e);

    void finish() {
    }

    /**
     * True when the rule is about whole chains and sees every event of the agents checked, whatever
     * the {@code since}/{@code until} window (a chain verifies only from its first event).
     */
    boolean wholeChains() {
        return false;
    }

    /** Shared by the checks of one engine, which sets it before the first event; null: no sharing. */
    ScopeKey.Cache keys;

    final ScopeKey scope(PolicyEvent e) {
        return keys != null ? keys.of(e, rule.scope()) : ScopeKey.of(e, rule.scope());
    }

    final void violation(PolicyEvent e, String message) {
        violation(EventRef.of(e), message);
    }

    final void violation(EventRef e, String message) {
        violations++;
        examples.add(e.example(message));
    }

    final RuleResult result(String policy) {
        List<Example> list = examples.list();
        boolean passed = violations == 0;
        return new RuleResult(policy, rule.name(), rule.type(), rule.severity(), passed, violations, list);
    }
}
