package io.trailproof.core.policy;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * The answer of a policy check (src/site/redaction.md). {@code passed} is false when a rule of severity
 * {@code fail} has a violation; {@code warn} rules are reported and never fail the check.
 * {@code eventsChecked} counts the events at least one rule looked at.
 */
public record PolicyReport(boolean passed, List<RuleResult> results, long eventsChecked) {
    public PolicyReport {
        results = List.copyOf(results);
    }

    static PolicyReport of(List<RuleResult> results, long eventsChecked) {
        boolean passed = results.stream().allMatch(r -> r.passed() || r.severity() == Severity.WARN);
        return new PolicyReport(passed, results, eventsChecked);
    }

    public ObjectNode toJson() {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("passed", passed);
        o.put("events_checked", eventsChecked);
        ArrayNode list = o.putArray("results");
        for (RuleResult r : results) {
            ObjectNode n = list.addObject();
            n.put("policy", r.policy());
            n.put("rule", r.rule());
            n.put("type", r.type());
            n.put("severity", r.severity().wireName());
            n.put("passed", r.passed());
            n.put("violations", r.violations());
            ArrayNode ex = n.putArray("examples");
            for (Example e : r.examples()) {
                ex.addObject()
                        .put("event_id", e.eventId())
                        .put("agent_id", e.agentId())
                        .put("sequence", e.sequence())
                        .put("message", e.message());
            }
        }
        return o;
    }
}
