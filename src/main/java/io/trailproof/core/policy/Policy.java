package io.trailproof.core.policy;

import java.util.List;

/** A named group of rules, as a policy document lists it. */
public record Policy(String name, List<Rule> rules) {
    public Policy {
        rules = List.copyOf(rules);
    }
}
