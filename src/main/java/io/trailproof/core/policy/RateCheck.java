package io.trailproof.core.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * {@code rate}: at most {@code max} events per window of {@code per} per scope; windows are aligned
 * to 1970-01-01T00:00:00Z and an event falls in the window of its {@code timestamp}. Each event past
 * {@code max} in its window (in log order) is a violation. Memory: per scope, a count for each
 * window it has events in (timestamps need not grow along the log, so an old window may see more).
 */
final class RateCheck extends RuleCheck {

    private final RuleDefinition.Rate def;
    private final long perMicros;
    private final Map<ScopeKey, Map<Long, long[]>> counts = new HashMap<>();

    RateCheck(Rule rule, RuleDefinition.Rate def) {
        super(rule);
        this.def = def;
        this.perMicros = def.perMillis() * 1000;
    }

    @Override
    void accept(PolicyEvent e) {
        long window = Math.floorDiv(e.timestampMicros(), perMicros);
        ScopeKey scope = scope(e);
        long[] count = counts.computeIfAbsent(scope, k -> new HashMap<>()).computeIfAbsent(window, w -> new long[1]);
        if (++count[0] > def.max()) {
            violation(e, "event " + count[0] + " of " + scope.describe() + " in the " + Texts.duration(def.perMillis())
                    + " window from " + Texts.instant(window * perMicros) + "; at most " + def.max() + " are allowed");
        }
    }
}
