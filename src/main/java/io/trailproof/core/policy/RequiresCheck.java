package io.trailproof.core.policy;

import java.util.HashSet;
import java.util.Set;

/**
 * {@code requires}: every {@code for} event with no {@code requires} event before it in its scope
 * (in log order) is a violation. Memory: the scopes that have seen {@code requires}.
 */
final class RequiresCheck extends RuleCheck {

    private final RuleDefinition.Requires def;
    private final Set<ScopeKey> met = new HashSet<>();

    RequiresCheck(Rule rule, RuleDefinition.Requires def) {
        super(rule);
        this.def = def;
    }

    @Override
    void accept(PolicyEvent e) {
        String name = e.actionName();
        if (name == null) {
            return;
        }
        if (name.equals(def.forAction()) && !met.contains(scope(e))) {
            violation(e, def.forAction() + " requires an earlier " + def.requires() + " in " + scope(e).describe());
        }
        if (name.equals(def.requires())) {
            met.add(scope(e));
        }
    }
}
