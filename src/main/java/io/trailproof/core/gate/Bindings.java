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
 * good for one attempt. Where the decisions are kept is a {@link Store}: in memory by default (one
 * entry per decision seen); the service keeps them outside its heap. Not thread-safe.
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
            this(e.id(), e.agentId(), e.effect(), e.argsSha256(), e.expiresAtMicros());
        }

        /** A decision as its {@code DECISION} event states it, before any answer or use. */
        public Decision(String id, String agentId, String effect, String argsSha256, long expiresAtMicros) {
            this.id = id;
            this.agentId = agentId;
            this.effect = effect;
            this.argsSha256 = argsSha256;
            this.expiresAtMicros = expiresAtMicros;
        }

        /** Takes {@code approval}'s answer (the first answer of its own agent to an ask; see {@link #accept}). */
        public void answer(GateEvent approval) {
            approved = approval.approved();
            approver = approval.approver();
            validUntilMicros = approval.validUntilMicros();
            approvalId = approval.id();
        }
    }

    /**
     * Where the decisions are kept. {@link Bindings} changes a decision it got from {@link #get} in
     * place and then says so ({@link #answered}, {@link #used}), so a store that holds them elsewhere
     * records the change; until then {@code get} of that id answers the same object.
     */
    public interface Store {
        /** The decision of that id as it stands, or null when none was added. */
        Decision get(String id);

        /** A decision whose id the store does not hold. */
        void add(Decision d);

        /** {@code d} took its answer ({@link Decision#answer}). */
        void answered(Decision d);

        /** {@code d} was used, by the call {@code d.usedBy}. */
        void used(Decision d);
    }

    /** What a call came to: passed ({@code check} null) or the check it failed, and its decision (null when unknown). */
    public record Verdict(Check check, Decision decision) {
        public boolean passed() {
            return check == null;
        }
    }

    private final Store decisions;

    /** Bindings that keep their decisions in memory. */
    public Bindings() {
        this(new InMemory());
    }

    public Bindings(Store decisions) {
        this.decisions = decisions;
    }

    /** The decision of that id, or null when none was seen. */
    public Decision decision(String id) {
        return decisions.get(id);
    }

    /**
     * Takes one event in log order; answers the verdict of a bound call, null for any other event.
     * Only the first answer to an ask counts (the service writes no second one).
     */
    public Verdict accept(GateEvent e) {
        switch (e.kind()) {
            case DECISION -> {
                if (e.id() != null && decisions.get(e.id()) == null) {
                    decisions.add(new Decision(e));
                }
                return null;
            }
            case APPROVAL -> {
                Decision d = e.decisionId() == null ? null : decisions.get(e.decisionId());
                if (d != null && d.approved == null && "ask".equals(d.effect) && d.agentId.equals(e.agentId())) {
                    d.answer(e);
                    decisions.answered(d);
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
        Decision d = e.decisionId() == null ? null : decisions.get(e.decisionId());
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
            decisions.used(d);
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

    /** The default store: every decision in a map. */
    private static final class InMemory implements Store {
        private final Map<String, Decision> decisions = new HashMap<>();

        @Override
        public Decision get(String id) {
            return decisions.get(id);
        }

        @Override
        public void add(Decision d) {
            decisions.put(d.id, d);
        }

        @Override
        public void answered(Decision d) {
            // changed in place
        }

        @Override
        public void used(Decision d) {
            // changed in place
        }
    }
}
