package io.trailproof.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventTime;

import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * What the gate's bindings read of one stored event (src/site/gates.md): a decision, an answer to an
 * ask, a call bound to a decision, or a recorded violation. Times are microseconds since the epoch,
 * -1 when absent. Built from the stored event's JSON by {@link #of}; fields a kind does not use are
 * null or -1.
 */
public record GateEvent(Kind kind, String id, String agentId, long sequence, long recordedAtMicros,
                        String decisionId, String effect, String argsSha256, long expiresAtMicros,
                        boolean approved, String approver, long validUntilMicros, String violationEventId,
                        String check) {

    public enum Kind { DECISION, APPROVAL, CALL, VIOLATION }

    /**
     * The gate's view of a stored event, or null when the event takes no part in a binding. A
     * service event whose {@code action_output} lacks a member it must have is read with that member
     * null: the bindings then treat it as saying nothing (a tampered event fails the chain checks).
     */
    public static GateEvent of(JsonNode event) {
        String type = text(event, "action_type");
        String id = text(event, "id");
        String agent = text(event, "agent_id");
        long sequence = event.path("sequence").asLong(-1);
        long recordedAt = micros(text(event, "recorded_at"));
        JsonNode out = event.path("action_output");
        if (GateFields.DECISION.equals(type)) {
            return new GateEvent(Kind.DECISION, id, agent, sequence, recordedAt, id, text(out, GateFields.OUT_DECISION),
                    text(out, GateFields.OUT_ARGS_SHA256), micros(text(out, GateFields.OUT_EXPIRES_AT)), false, null, -1,
                    null, null);
        }
        if (GateFields.APPROVAL.equals(type)) {
            return new GateEvent(Kind.APPROVAL, id, agent, sequence, recordedAt, text(out, "decision_id"), null,
                    text(out, GateFields.OUT_ARGS_SHA256), -1, out.path(GateFields.OUT_APPROVED).asBoolean(false),
                    text(out, GateFields.OUT_APPROVER), micros(text(out, GateFields.OUT_VALID_UNTIL)), null, null);
        }
        if (GateFields.GATE_VIOLATION.equals(type)) {
            return new GateEvent(Kind.VIOLATION, id, agent, sequence, recordedAt, text(out, "decision_id"), null, null, -1,
                    false, null, -1, text(out, GateFields.OUT_EVENT_ID), text(out, GateFields.OUT_CHECK));
        }
        String decisionId = text(event, GateFields.DECISION_ID);
        if (decisionId != null && GateFields.TOOL_CALL.equals(type)) {
            return new GateEvent(Kind.CALL, id, agent, sequence, recordedAt, decisionId, null, ArgsDigest.ofEvent(event), -1,
                    false, null, -1, null, null);
        }
        return null;
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || !v.isTextual() ? null : v.textValue();
    }

    /** An RFC 3339 time as microseconds since the epoch; -1 for null or text that is not a time. */
    public static long micros(String time) {
        if (time == null) {
            return -1;
        }
        try {
            Instant t = EventTime.parseTimestamp(time);
            return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
        } catch (DateTimeParseException | ArithmeticException e) {
            return -1;
        }
    }
}
