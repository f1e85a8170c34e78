package io.trailproof.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.MemberScanner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * What the gate's bindings read of one stored event (src/site/gates.md): a decision, an answer to an
 * ask, a call bound to a decision, or a recorded violation. Times are microseconds since the epoch,
 * -1 when absent. Built from the stored event's JSON by {@link #of}, or from its bytes by
 * {@link #read}; fields a kind does not use are null or -1 ({@code rule} and {@code reason} are a
 * decision's).
 */
public record GateEvent(Kind kind, String id, String agentId, long sequence, long recordedAtMicros,
                        String decisionId, String effect, String argsSha256, long expiresAtMicros,
                        boolean approved, String approver, long validUntilMicros, String violationEventId,
                        String check, String rule, String reason) {

    /**
     * Built on first use: only a payload the one-pass scan leaves undecided is read into a tree, and
     * building a mapper costs a short command (verify-export) a tenth of its start.
     */
    private static final class Trees {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

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
                    null, null, text(out, GateFields.OUT_RULE), text(out, GateFields.OUT_REASON));
        }
        if (GateFields.APPROVAL.equals(type)) {
            return new GateEvent(Kind.APPROVAL, id, agent, sequence, recordedAt, text(out, "decision_id"), null,
                    text(out, GateFields.OUT_ARGS_SHA256), -1, out.path(GateFields.OUT_APPROVED).asBoolean(false),
                    text(out, GateFields.OUT_APPROVER), micros(text(out, GateFields.OUT_VALID_UNTIL)), null, null, null,
                    null);
        }
        if (GateFields.GATE_VIOLATION.equals(type)) {
            return new GateEvent(Kind.VIOLATION, id, agent, sequence, recordedAt, text(out, "decision_id"), null, null, -1,
                    false, null, -1, text(out, GateFields.OUT_EVENT_ID), text(out, GateFields.OUT_CHECK), null, null);
        }
        String decisionId = text(event, GateFields.DECISION_ID);
        if (decisionId != null && GateFields.TOOL_CALL.equals(type)) {
            return new GateEvent(Kind.CALL, id, agent, sequence, recordedAt, decisionId, null, ArgsDigest.ofEvent(event), -1,
                    false, null, -1, null, null, null, null);
        }
        return null;
    }

    /**
     * {@link #of} from a stored event's bytes, without building its tree: a service event (decision,
     * answer, violation) is read by one {@link MemberScanner} pass that steps over its input. The
     * answer is the same as {@code of} gives for the parsed bytes: a bound call (whose digest needs
     * its input's tree), and any member of an unexpected kind, are read by {@code of} itself.
     *
     * @throws IllegalArgumentException when the bytes are not one JSON object
     */
    public static GateEvent read(byte[] payload) {
        try {
            GateEvent scanned = Scan.of(payload);
            if (scanned != null) {
                return scanned.kind() == null ? null : scanned;
            }
        } catch (IllegalArgumentException notScanned) {
            // a full parser decides and explains (below)
        }
        try {
            return of(Trees.MAPPER.readTree(payload));
        } catch (IOException e) {
            throw new IllegalArgumentException("a stored event is not readable JSON: " + e.getMessage(), e);
        }
    }

    /**
     * One pass over a payload's members, reading them as {@code of} reads the tree: a text member
     * that is not a string is null. Answers null when the tree must decide (a bound call, a
     * {@code sequence} that is not a plain integer, an {@code approved} that is not a literal), and
     * a GateEvent of kind null for an event that takes no part in a binding.
     */
    private static final class Scan {
        private static final GateEvent NONE = new GateEvent(null, null, null, -1, -1, null, null, null, -1, false, null,
                -1, null, null, null, null);

        private final byte[] b;
        private String type, id, agent, recordedAt, decisionId;
        private long sequence = -1;
        private String decision, argsSha256, expiresAt, rule, reason, outDecisionId, approver, validUntil, eventId, check;
        private boolean approved;
        private boolean unread;

        private Scan(byte[] payload) {
            this.b = payload;
        }

        static GateEvent of(byte[] payload) {
            Scan s = new Scan(payload);
            MemberScanner m = new MemberScanner(payload);
            MemberScanner out = null;
            while (m.next()) {
                if (m.nameIs("action_type")) {
                    s.type = m.stringValue();
                } else if (m.nameIs("id")) {
                    s.id = m.stringValue();
                } else if (m.nameIs("agent_id")) {
                    s.agent = m.stringValue();
                } else if (m.nameIs("recorded_at")) {
                    s.recordedAt = m.stringValue();
                } else if (m.nameIs(GateFields.DECISION_ID)) {
                    s.decisionId = m.stringValue();
                } else if (m.nameIs("sequence")) {
                    s.sequence = m.integerValue();
                    s.unread |= s.sequence == Long.MIN_VALUE;
                } else if (m.nameIs("action_output")) {
                    out = m.kind() == MemberScanner.Kind.OBJECT ? m.objectValue() : null;
                }
            }
            boolean decision = GateFields.DECISION.equals(s.type);
            boolean approval = GateFields.APPROVAL.equals(s.type);
            boolean violation = GateFields.GATE_VIOLATION.equals(s.type);
            if (!decision && !approval && !violation) {
                return s.decisionId == null ? NONE : null;
            }
            if (out != null) {
                s.output(out);
            }
            if (s.unread) {
                return null;
            }
            long recorded = micros(s.recordedAt);
            if (decision) {
                return new GateEvent(Kind.DECISION, s.id, s.agent, s.sequence, recorded, s.id, s.decision, s.argsSha256,
                        micros(s.expiresAt), false, null, -1, null, null, s.rule, s.reason);
            }
            if (approval) {
                return new GateEvent(Kind.APPROVAL, s.id, s.agent, s.sequence, recorded, s.outDecisionId, null,
                        s.argsSha256, -1, s.approved, s.approver, micros(s.validUntil), null, null, null, null);
            }
            return new GateEvent(Kind.VIOLATION, s.id, s.agent, s.sequence, recorded, s.outDecisionId, null, null, -1,
                    false, null, -1, s.eventId, s.check, null, null);
        }

        private void output(MemberScanner m) {
            while (m.next()) {
                if (m.nameIs(GateFields.OUT_DECISION)) {
                    decision = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_ARGS_SHA256)) {
                    argsSha256 = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_EXPIRES_AT)) {
                    expiresAt = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_RULE)) {
                    rule = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_REASON)) {
                    reason = m.stringValue();
                } else if (m.nameIs("decision_id")) {
                    outDecisionId = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_APPROVER)) {
                    approver = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_VALID_UNTIL)) {
                    validUntil = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_EVENT_ID)) {
                    eventId = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_CHECK)) {
                    check = m.stringValue();
                } else if (m.nameIs(GateFields.OUT_APPROVED)) {
                    // true, false or null as the literal; any other kind is read by the tree (asBoolean)
                    unread |= m.kind() != MemberScanner.Kind.LITERAL;
                    approved = m.kind() == MemberScanner.Kind.LITERAL && b[m.valueStart()] == 't';
                }
            }
        }
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
