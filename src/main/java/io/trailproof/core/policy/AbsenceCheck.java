package io.trailproof.core.policy;

import java.util.HashSet;
import java.util.Set;

/**
 * {@code absence}: every {@code deny} event is a violation; with {@code when}, only those after a
 * {@code when} event of their scope (in log order). Memory: the scopes that have seen {@code when}.
 */
final class AbsenceCheck extends RuleCheck {

    private final RuleDefinition.Absence def;
    private final Set<ScopeKey> armed = new HashSet<>();

    AbsenceCheck(Rule rule, RuleDefinition.Absence def) {
        super(rule);
        this.def = def;
    }

    @Override
    void accept(PolicyEvent e) {
        String name = e.actionName();
        if (name == null) {
            return;
        }
        if (def.denies(name)) {
            if (def.when() == null) {
                violation(e, name + " must never occur; it did in " + scope(e).describe());
            } else if (armed.contains(scope(e))) {
                violation(e, name + " must not occur after " + def.when() + "; it did in " + scope(e).describe());
            }
        }
        if (def.when() != null && name.equals(def.when())) {
            armed.add(scope(e));
        }
    }
}
