package io.trailproof.core.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * {@code sequence}: each {@code when} event needs an {@code expect} event after it (in log order)
 * in its scope whose timestamp is at most {@code within} after its own. One {@code expect} answers
 * every pending {@code when} it is in time for. Pending {@code when} events are kept until answered
 * (timestamps are the clients' and need not grow along the log, so a late one may still answer);
 * those never answered are the violations. Memory: the pending {@code when} events.
 */
final class SequenceCheck extends RuleCheck {

    private final RuleDefinition.Sequence def;
    private final Map<ScopeKey, List<EventRef>> pending = new HashMap<>();

    SequenceCheck(Rule rule, RuleDefinition.Sequence def) {
        super(rule);
        this.def = def;
    }

    @Override
    void accept(PolicyEvent e) {
        String name = e.actionName();
        if (name == null) {
            return;
        }
        ScopeKey scope = null;
        if (name.equals(def.expect())) {
            scope = scope(e);
            List<EventRef> waiting = pending.get(scope);
            if (waiting != null) {
                for (Iterator<EventRef> it = waiting.iterator(); it.hasNext(); ) {
                    EventRef w = it.next();
                    if (def.withinMillis() == 0 || e.timestampMicros() - w.timestampMicros() <= def.withinMillis() * 1000) {
                        it.remove();
                    }
                }
                if (waiting.isEmpty()) {
                    pending.remove(scope);
                }
            }
        }
        if (name.equals(def.when())) {
            pending.computeIfAbsent(scope != null ? scope : scope(e), k -> new ArrayList<>(2)).add(EventRef.of(e));
        }
    }

    @Override
    void finish() {
        for (Map.Entry<ScopeKey, List<EventRef>> entry : pending.entrySet()) {
            for (EventRef w : entry.getValue()) {
                violation(w, def.when() + " at sequence " + w.sequence() + " is not followed by " + def.expect()
                        + (def.withinMillis() == 0 ? "" : " within " + Texts.duration(def.withinMillis()))
                        + " in " + entry.getKey().describe());
            }
        }
        pending.clear();
    }
}
