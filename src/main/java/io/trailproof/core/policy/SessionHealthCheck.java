package io.trailproof.core.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * Built-in {@code session_health}: no gap of more than 1 h between the timestamps of consecutive
 * events (in log order) of a session; the later event of each such gap is a violation. Memory: per
 * session, the last event's timestamp.
 */
final class SessionHealthCheck extends RuleCheck {

    static final long MAX_GAP_MICROS = 3_600_000_000L;

    private final Map<ScopeKey, long[]> last = new HashMap<>();

    SessionHealthCheck(Rule rule) {
        super(rule);
    }

    @Override
    void accept(PolicyEvent e) {
        ScopeKey scope = scope(e);
        long[] previous = last.get(scope);
        if (previous == null) {
            last.put(scope, new long[]{e.timestampMicros()});
            return;
        }
        long gap = e.timestampMicros() - previous[0];
        if (gap > MAX_GAP_MICROS) {
            violation(e, "a gap of " + (gap / 60_000_000) + " min after the previous event of " + scope.describe()
                    + " (more than 1h)");
        }
        previous[0] = e.timestampMicros();
    }
}
