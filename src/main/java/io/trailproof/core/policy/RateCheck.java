package io.trailproof.core.policy;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code rate}: at most {@code max} events per window of {@code per} per scope; windows are aligned
 * to 1970-01-01T00:00:00Z and an event falls in the window of its {@code timestamp}. Each event past
 * {@code max} in its window (in log order) is a violation.
 *
 * <p>Memory: per scope, a count for each of the most recent {@value #KEPT_WINDOWS} windows it has
 * events in. Timestamps are the clients' and need not grow along the log, so an older window may
 * still see events; but keeping every window ever seen would grow with the trail. An event whose
 * window is older than every kept one (more than {@value #KEPT_WINDOWS} windows with events behind
 * its scope's newest) is counted in a fresh count of its window: exact for any trail whose clocks
 * are that close to in order, which one log of one service's agents is.
 */
final class RateCheck extends RuleCheck {

    static final int KEPT_WINDOWS = 1024;

    private final RuleDefinition.Rate def;
    private final long perMicros;
    private final Map<ScopeKey, TreeMap<Long, long[]>> counts = new HashMap<>();

    RateCheck(Rule rule, RuleDefinition.Rate def) {
        super(rule);
        this.def = def;
        this.perMicros = def.perMillis() * 1000;
    }

    @Override
    void accept(PolicyEvent e) {
        long window = Math.floorDiv(e.timestampMicros(), perMicros);
        ScopeKey scope = scope(e);
        TreeMap<Long, long[]> windows = counts.computeIfAbsent(scope, k -> new TreeMap<>());
        long[] count = windows.computeIfAbsent(window, w -> new long[1]);
        if (windows.size() > KEPT_WINDOWS) {
            windows.pollFirstEntry(); // possibly the one just made: an event that late counts alone
        }
        if (++count[0] > def.max()) {
            violation(e, "event " + count[0] + " of " + scope.describe() + " in the " + Texts.duration(def.perMillis())
                    + " window from " + Texts.instant(window * perMicros) + "; at most " + def.max() + " are allowed");
        }
    }
}
