package io.trailproof.core.policy;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code presence}: each required name must occur at least once in every scope that has an event
 * (after the label filter). Each name missing from a scope is one violation, named by the scope's
 * first event. Memory: per scope, its first event and which names it has seen.
 */
final class PresenceCheck extends RuleCheck {

    private final List<String> required;
    private final Map<String, Integer> bit = new HashMap<>();
    private final Map<ScopeKey, Seen> scopes = new HashMap<>();

    private static final class Seen {
        final EventRef first;
        final BitSet names;

        Seen(EventRef first, int n) {
            this.first = first;
            this.names = new BitSet(n);
        }
    }

    PresenceCheck(Rule rule, RuleDefinition.Presence def) {
        super(rule);
        this.required = def.required();
        for (int i = 0; i < required.size(); i++) {
            bit.put(required.get(i), i);
        }
    }

    @Override
    void accept(PolicyEvent e) {
        Seen seen = scopes.computeIfAbsent(scope(e), k -> new Seen(EventRef.of(e), required.size()));
        Integer i = e.actionName() == null ? null : bit.get(e.actionName());
        if (i != null) {
            seen.names.set(i);
        }
    }

    @Override
    void finish() {
        for (Map.Entry<ScopeKey, Seen> entry : scopes.entrySet()) {
            Seen seen = entry.getValue();
            for (int i = 0; i < required.size(); i++) {
                if (!seen.names.get(i)) {
                    violation(seen.first, "no " + required.get(i) + " event in " + entry.getKey().describe());
                }
            }
        }
        scopes.clear();
    }
}
