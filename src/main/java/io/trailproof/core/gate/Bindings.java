package io.trailproof.core.gate;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The binding of actions to their decisions (src/site/gates.md), as a state machine over stored
 * events in log order: the same code answers on ingest (the service), in the built-in policy
 * {@code gate_compliance} and offline in {@code verify-export}, so all three agree.
 *
 * <p>A {@code TOOL_CALL} that names a decision passes when the decision is in the same agent's
 * chain, is {@code allow} or an approved {@code ask}, was not used by an earlier call, has not
 * expired (the call's {@code recorded_at} is not after the approval's {@code valid_until}; an
 * unanswered ask is expired once its {@code expires_at} passed), and its {@code args_sha256} equals
 * the call's. The checks are made in that order and the first that fails is the answer. The first
 * call of the same agent that names a decision uses it, whether it passed or not: a decision is
 * good for one attempt. Memory: one entry per decision seen. Not thread-safe.
 */
public final class Bindings {

    /** Why a bound call failed; {@link #wireName()} is the {@code check} of its {@code GATE_VIOLATION}. */
    public enum Check {
        UNKNOWN_DECISION, OTHER_AGENT, DENIED, EXPIRED, USED, ARGUMENTS;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The check of that wire name, or null. */
        public static Check of(String wire) {
            for (Check c : values()) {
                if (c.wireName().equals(wire)) {
                    return c;
                }
            }
            return null;
        }
    }

    /** One decision and what became of it; changed only by {@link #accept}. */
    public static final class Decision {
        public final String id;
        public final String agentId;
        /** {@code allow}, {@code deny} or {@code ask}. */
        public final String effect;
        public final String argsSha256;
        public final long expiresAtMicros;
        /** Null while an ask is unanswered. */
        public Boolean approved;
        public String approver;
        public long validUntilMicros = -1;
        public String approvalId;
        /** The id of the first call of its agent that named it, or null. */
        public String usedBy;

        Decision(GateEvent e) {
            this.id = e.id();
            this.agentId = e.agentId();
            this.effect = e.effect();
            this.argsSha256 = e.argsSha256();
            this.expiresAtMicros = e.expiresAtMicros();
        }
    }

    /** What a call came to: passed ({@code check} null) or the check it failed, and its decision (null when unknown). */
    public record Verdict(Check check, Decision decision) {
        public boolean passed() {
            return check == null;
        }
    }

    private final Map<String, Decision> decisions = new HashMap<>();

    /** The decision of that id, or null when none was seen. */
    public Decision decision(String id) {
        return decisions.get(id);
    }

    /** Decisions seen so far. */
    public int size() {
        return decisions.size();
    }

    /**
     * Takes one event in log order; answers the verdict of a bound call, null for any other event.
     * Only the first answer to an ask counts (the service writes no second one).
     */
    public Verdict accept(GateEvent e) {
        switch (e.kind()) {
            case DECISION -> {
                decisions.putIfAbsent(e.id(), new Decision(e));
                return null;
            }
            case APPROVAL -> {
                Decision d = e.decisionId() == null ? null : decisions.get(e.decisionId());
                if (d != null && d.approved == null && "ask".equals(d.effect) && d.agentId.equals(e.agentId())) {
                    d.approved = e.approved();
                    d.approver = e.approver();
                    d.validUntilMicros = e.validUntilMicros();
                    d.approvalId = e.id();
                }
                return null;
            }
            case CALL -> {
                return call(e);
            }
            default -> {
                return null;
            }
        }
    }

    private Verdict call(GateEvent e) {
        Decision d = decisions.get(e.decisionId());
        if (d == null) {
            return new Verdict(Check.UNKNOWN_DECISION, null);
        }
        if (!d.agentId.equals(e.agentId())) {
            return new Verdict(Check.OTHER_AGENT, d);
        }
        Check failed = allowedAt(d, e.recordedAtMicros());
        if (failed == null && d.usedBy != null) {
            failed = Check.USED;
        }
        if (failed == null && (d.argsSha256 == null || !d.argsSha256.equals(e.argsSha256()))) {
            failed = Check.ARGUMENTS;
        }
        if (d.usedBy == null) {
            d.usedBy = e.id();
        }
        return new Verdict(failed, d);
    }

    /** Null when {@code d} allowed a call at {@code atMicros}; otherwise why not ({@code denied} or {@code expired}). */
    static Check allowedAt(Decision d, long atMicros) {
        if ("allow".equals(d.effect)) {
            return null;
        }
        if (!"ask".equals(d.effect)) {
            return Check.DENIED;
        }
        if (d.approved == null) {
            return d.expiresAtMicros >= 0 && atMicros > d.expiresAtMicros ? Check.EXPIRED : Check.DENIED;
        }
        if (!d.approved) {
            return Check.DENIED;
        }
        return d.validUntilMicros >= 0 && atMicros > d.validUntilMicros ? Check.EXPIRED : null;
    }
}
