package io.trailproof.core.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The built-in policies of src/site/redaction.md, run when no document is given: each a policy with one rule
 * of the same name, type {@code builtin}, severity {@code fail}. The session rules keep their state
 * per session, the others per agent.
 */
public final class BuiltinPolicies {

    private BuiltinPolicies() {
    }

    public static List<Policy> all() {
        List<Policy> out = new ArrayList<>();
        for (RuleDefinition.BuiltinKind kind : RuleDefinition.BuiltinKind.values()) {
            Scope scope = switch (kind) {
                case EVENT_COMPLETENESS, SESSION_HEALTH, ERROR_RATE -> Scope.SESSION;
                case CHAIN_INTEGRITY, DURATION_OUTLIERS, GATE_COMPLIANCE -> Scope.AGENT;
            };
            out.add(new Policy(kind.wireName(), List.of(new Rule(kind.wireName(), Severity.FAIL, scope, Map.of(),
                    new RuleDefinition.Builtin(kind)))));
        }
        return out;
    }
}
