package io.trailproof.core.policy;

import java.util.List;

/** The outcome of one rule (src/site/redaction.md): how many violations, and the first examples in log order. */
public record RuleResult(String policy, String rule, String type, Severity severity, boolean passed, long violations,
                         List<Example> examples) {
    public RuleResult {
        examples = List.copyOf(examples);
    }
}
