package io.trailproof.core.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * Built-in {@code error_rate}: a session with at least 4 events of which more than half have
 * {@code action_status} {@code error} is one violation, named by the session's first event.
 * Memory: per session, its first event and two counts.
 */
final class ErrorRateCheck extends RuleCheck {

    static final int MIN_EVENTS = 4;

    private final Map<ScopeKey, Tally> sessions = new HashMap<>();

    private static final class Tally {
        final EventRef first;
        long events;
        long errors;

        Tally(EventRef first) {
            this.first = first;
        }
    }

    ErrorRateCheck(Rule rule) {
        super(rule);
    }

    @Override
    void accept(PolicyEvent e) {
        Tally t = sessions.computeIfAbsent(scope(e), k -> new Tally(EventRef.of(e)));
        t.events++;
        if ("error".equals(e.actionStatus())) {
            t.errors++;
        }
    }

    @Override
    void finish() {
        for (Map.Entry<ScopeKey, Tally> s : sessions.entrySet()) {
            Tally t = s.getValue();
            if (t.events >= MIN_EVENTS && t.errors * 2 > t.events) {
                violation(t.first, t.errors + " of " + t.events + " events of " + s.getKey().describe()
                        + " have action_status error (more than 50%)");
            }
        }
        sessions.clear();
    }
}
