package io.trailproof.core.policy;

/**
 * {@code pattern}: an event whose value at {@code for_field} has no match of {@code match_pattern},
 * or has a match of {@code deny_pattern}, is a violation; events without the field are skipped.
 * The value is a string's text, or the JSON text of any other value. No state.
 */
final class PatternCheck extends RuleCheck {

    private final RuleDefinition.PatternRule def;
    private final String[] path;

    PatternCheck(Rule rule, RuleDefinition.PatternRule def) {
        super(rule);
        this.def = def;
        this.path = def.field().split("\\.");
    }

    /** The top-level field the event reader must keep whole for this rule. */
    String root() {
        return path[0];
    }

    @Override
    void accept(PolicyEvent e) {
        String value = e.valueAt(path);
        if (value == null) {
            return;
        }
        boolean found = def.pattern().matcher(value).find();
        if (def.deny() && found) {
            violation(e, def.field() + " contains a match of the denied pattern " + def.pattern().pattern());
        } else if (!def.deny() && !found) {
            violation(e, def.field() + " has no match of the required pattern " + def.pattern().pattern());
        }
    }
}
