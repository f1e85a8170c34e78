package io.trailproof.core.gate;

import io.trailproof.core.event.EventFields;

/**
 * The names of gates and approvals (src/site/gates.md): the service's event types, the event field
 * that binds an action to its decision, the agent whose chain holds the gate policies, and the
 * members of the events' {@code action_output}.
 */
public final class GateFields {

    private GateFields() {
    }

    /** The event field a {@code TOOL_CALL} names its decision with. */
    public static final String DECISION_ID = EventFields.DECISION_ID;

    /** {@code action_type} of a decision, an answer to an ask, a failed binding; only the service writes them. */
    public static final String DECISION = "DECISION";
    public static final String APPROVAL = "APPROVAL";
    public static final String GATE_VIOLATION = "GATE_VIOLATION";
    /** {@code action_type} of a gate policy document, in the chain of {@link #POLICIES_AGENT}. */
    public static final String GATE_POLICY = "GATE_POLICY";
    /** The action a binding is checked for. */
    public static final String TOOL_CALL = "TOOL_CALL";

    /** The agent whose chain records every gate policy; never erasable, never written by clients. */
    public static final String POLICIES_AGENT = EventFields.POLICIES_AGENT;

    /** True for the event types the service alone writes, which the rules' history leaves out. */
    public static boolean serviceWritten(String actionType) {
        return DECISION.equals(actionType) || APPROVAL.equals(actionType) || GATE_VIOLATION.equals(actionType);
    }

    // Members of a DECISION's action_output (and of the answer of POST /v1/decisions).
    public static final String OUT_DECISION = "decision";
    public static final String OUT_POLICY = "policy";
    public static final String OUT_RULE = "rule";
    public static final String OUT_REASON = "reason";
    public static final String OUT_POLICY_EVENT_ID = "policy_event_id";
    public static final String OUT_ARGS_SHA256 = "args_sha256";
    public static final String OUT_EXPIRES_AT = "expires_at";
    // Members of an APPROVAL's action_output.
    public static final String OUT_APPROVED = "approved";
    public static final String OUT_APPROVER = "approver";
    public static final String OUT_COMMENT = "comment";
    public static final String OUT_VALID_UNTIL = "valid_until";
    // Members of a GATE_VIOLATION's action_output.
    public static final String OUT_EVENT_ID = "event_id";
    public static final String OUT_CHECK = "check";
}
