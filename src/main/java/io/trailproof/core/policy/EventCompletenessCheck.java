package io.trailproof.core.policy;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Built-in {@code event_completeness}: every {@code TOOL_CALL} is followed later in its session by a
 * {@code TOOL_RESULT} with the same {@code action_name}; each result answers one call, the oldest
 * pending one of that name (a result with no pending call is not a violation). Calls never answered
 * are the violations. Memory: the pending calls, and a queue per session and name.
 */
final class EventCompletenessCheck extends RuleCheck {

    static final String CALL = "TOOL_CALL";
    static final String RESULT = "TOOL_RESULT";

    private final Map<ScopeKey, Map<String, ArrayDeque<EventRef>>> pending = new HashMap<>();

    EventCompletenessCheck(Rule rule) {
        super(rule);
    }

    @Override
    void accept(PolicyEvent e) {
        String type = e.actionType();
        if (!CALL.equals(type) && !RESULT.equals(type)) {
            return;
        }
        String name = e.actionName() == null ? "" : e.actionName();
        ScopeKey scope = scope(e);
        if (CALL.equals(type)) {
            pending.computeIfAbsent(scope, k -> new HashMap<>(4))
                    .computeIfAbsent(name, n -> new ArrayDeque<>(2)).addLast(EventRef.of(e));
            return;
        }
        // Emptied queues stay: a session's next call of the name reuses its queue. That is state per
        // session and name, as error_rate and session_health keep per session anyway.
        Map<String, ArrayDeque<EventRef>> byName = pending.get(scope);
        ArrayDeque<EventRef> calls = byName == null ? null : byName.get(name);
        if (calls != null) {
            calls.pollFirst();
        }
    }

    @Override
    void finish() {
        for (Map.Entry<ScopeKey, Map<String, ArrayDeque<EventRef>>> s : pending.entrySet()) {
            for (Map.Entry<String, ArrayDeque<EventRef>> calls : s.getValue().entrySet()) {
                for (EventRef call : calls.getValue()) {
                    violation(call, "TOOL_CALL " + calls.getKey() + " at sequence " + call.sequence()
                            + " has no TOOL_RESULT after it in " + s.getKey().describe());
                }
            }
        }
        pending.clear();
    }
}
