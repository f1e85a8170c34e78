package io.trailproof.core.policy;

import java.util.Map;

/**
 * One rule of a policy: what every rule has (name, severity, scope, the labels that select its
 * events) and what its type checks. {@code labelFilter} empty means every event.
 */
public record Rule(String name, Severity severity, Scope scope, Map<String, String> labelFilter,
                   RuleDefinition definition) {
    public Rule {
        labelFilter = Map.copyOf(labelFilter);
    }

    public String type() {
        return definition.type();
    }
}
