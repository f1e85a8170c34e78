package io.trailproof.core.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.gate.Bindings;
import io.trailproof.core.gate.GateEvent;
import io.trailproof.core.gate.GateFields;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

/**
 * The built-in {@code gate_compliance} (src/site/gates.md): in the chains of gated agents (agents with
 * a {@code DECISION}, from their first one on), every {@code TOOL_CALL} without a {@code decision_id}
 * and every bound call whose binding fails ({@link Bindings}: denied calls that ran, reused or expired
 * decisions, argument mismatches, unknown decisions or another agent's) is a violation. Memory: one
 * entry per decision and per gated agent.
 */
final class GateComplianceCheck extends RuleCheck {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Bindings bindings = new Bindings();
    private final Set<String> gated = new HashSet<>();

    GateComplianceCheck(Rule rule) {
        super(rule);
    }

    @Override
    void accept(PolicyEvent e) {
        String type = e.actionType();
        boolean bound = e.captured().containsKey(GateFields.DECISION_ID);
        if (!GateFields.DECISION.equals(type) && !GateFields.APPROVAL.equals(type)
                && !(bound && GateFields.TOOL_CALL.equals(type))) {
            if (GateFields.TOOL_CALL.equals(type) && gated.contains(e.agentId())) {
                violation(e, "a TOOL_CALL of gated agent " + e.agentId() + " ran without a decision_id");
            }
            return;
        }
        JsonNode event;
        try {
            event = MAPPER.readTree(e.payload());
        } catch (IOException unreadable) {
            return; // chain_integrity reports unreadable events
        }
        GateEvent g = GateEvent.of(event);
        if (g == null) {
            return;
        }
        if (g.kind() == GateEvent.Kind.DECISION) {
            gated.add(e.agentId());
        }
        Bindings.Verdict v = bindings.accept(g);
        if (v != null && !v.passed()) {
            violation(e, "the TOOL_CALL bound to decision " + g.decisionId() + " fails the check "
                    + v.check().wireName());
        }
    }
}
