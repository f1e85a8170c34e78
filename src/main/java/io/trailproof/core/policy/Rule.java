package io.trailproof.core.policy;

import java.util.Map;

/**
 * One rule of a policy: what every rule has (name, severity, scope, the labels that select its
 * events) and what its type checks. {@code labelFilter} empty means every event. {@code effect} is
 * null for a check-only rule; with one, the rule also decides proposals at the gate
 * (src/site/gates.md), and {@code reason} (nullable) is what the agent and the approver are shown.
 */
public record Rule(String name, Severity severity, Scope scope, Map<String, String> labelFilter,
                   RuleDefinition definition, Effect effect, String reason) {
    public Rule {
        labelFilter = Map.copyOf(labelFilter);
    }

    public Rule(String name, Severity severity, Scope scope, Map<String, String> labelFilter, RuleDefinition definition) {
        this(name, severity, scope, labelFilter, definition, null, null);
    }

    public String type() {
        return definition.type();
    }
}
