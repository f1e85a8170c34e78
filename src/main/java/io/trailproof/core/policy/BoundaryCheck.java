package io.trailproof.core.policy;

/**
 * {@code boundary}: every event whose {@code action_name} is not in {@code allow_actions} is a
 * violation. Events without an {@code action_name} name no action and are not counted. No state.
 */
final class BoundaryCheck extends RuleCheck {

    private final RuleDefinition.Boundary def;

    BoundaryCheck(Rule rule, RuleDefinition.Boundary def) {
        super(rule);
        this.def = def;
    }

    @Override
    void accept(PolicyEvent e) {
        if (e.actionName() != null && !def.allowed().contains(e.actionName())) {
            violation(e, "action " + e.actionName() + " is not one of the allowed actions");
        }
    }
}
