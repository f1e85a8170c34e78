package io.trailproof.core.evidence;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.gate.Bindings;
import io.trailproof.core.gate.GateEvent;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The binding of actions to their decisions, checked from the package alone
 * ({@link EvidenceCheck#GATE_BINDINGS}, src/site/gates.md): the same {@link Bindings} the service
 * runs on ingest, fed the package's events in order. A bound call whose check fails is a fact of the
 * trail when a {@code GATE_VIOLATION} event of the package records it; without one, the package
 * fails, with the call as evidence. A call that names a decision the package does not hold is judged
 * only when the package starts at the chain's first event (otherwise the decision may lie before it).
 * Also counts what the summary line states: decisions allowed, denied, approved (and by whom),
 * expired, and the violations recorded. Memory: one entry per decision and per failing call.
 */
final class GateBindingChecker {

    private record Failed(long sequence, String eventId, String decisionId, Bindings.Check check) {
    }

    private final Bindings bindings = new Bindings();
    private final Tally tally = new Tally(EvidenceCheck.GATE_BINDINGS);
    private final Map<String, Failed> unrecorded = new LinkedHashMap<>();
    private final Map<String, String> effects = new LinkedHashMap<>();
    private final Map<String, Integer> approvers = new TreeMap<>();
    private long firstSequence = -1;
    private long lastRecordedAtMicros = -1;
    private long calls;
    private long violations;
    private long notJudged;
    private boolean erasedAny;

    void event(StoredEvent event) {
        if (firstSequence < 0) {
            firstSequence = event.sequence();
        }
        long recordedAt = GateEvent.micros(event.recordedAt());
        lastRecordedAtMicros = Math.max(lastRecordedAtMicros, recordedAt);
        if (event.erased()) {
            erasedAny = true;
            return; // its content is gone: the erasure records say what; nothing to bind
        }
        GateEvent g = GateEvent.of(event.json());
        if (g == null) {
            return;
        }
        switch (g.kind()) {
            case DECISION -> effects.put(g.id(), g.effect());
            case VIOLATION -> {
                violations++;
                if (g.violationEventId() != null) {
                    unrecorded.remove(g.violationEventId());
                }
            }
            case CALL -> calls++;
            default -> { }
        }
        Bindings.Verdict v = bindings.accept(g);
        if (v == null || v.passed()) {
            return;
        }
        if (v.decision() == null && firstSequence > 1
                || erasedAny && v.check() != Bindings.Check.USED && v.check() != Bindings.Check.OTHER_AGENT) {
            // The decision may be in the part of the chain before the package, or its (or its answer's)
            // content erased: the package cannot show the binding either way.
            notJudged++;
            return;
        }
        unrecorded.put(g.id(), new Failed(event.sequence(), g.id(), g.decisionId(), v.check()));
    }

    /** The result once every event was seen; {@code exportedAtMicros} (or -1) decides which unanswered asks had expired. */
    CheckResult result(long exportedAtMicros) {
        for (Failed f : unrecorded.values()) {
            tally.fail(f.sequence(), f.eventId(), "a GATE_VIOLATION event recording check " + f.check().wireName()
                    + " for this call", "no GATE_VIOLATION event of the package names it",
                    "the TOOL_CALL bound to decision " + f.decisionId() + " fails the check " + f.check().wireName()
                            + ", and the trail does not record that: the call or its decision was changed, or "
                            + "the violation's record removed");
        }
        return tally.result(summary(exportedAtMicros >= 0 ? exportedAtMicros : lastRecordedAtMicros));
    }

    /**
     * {@code N calls decided: A allowed, D denied, P approved by <approvers>, E expired, V violations}
     * (and pending asks, when any); null when the package holds no decision and no bound call.
     */
    private String summary(long nowMicros) {
        if (effects.isEmpty() && calls == 0 && violations == 0) {
            return null;
        }
        long allowed = 0;
        long denied = 0;
        long approved = 0;
        long expired = 0;
        long pending = 0;
        for (Map.Entry<String, String> e : effects.entrySet()) {
            Bindings.Decision d = bindings.decision(e.getKey());
            switch (String.valueOf(e.getValue())) {
                case "allow" -> allowed++;
                case "deny" -> denied++;
                case "ask" -> {
                    if (d.approved == null) {
                        if (d.expiresAtMicros >= 0 && nowMicros > d.expiresAtMicros) {
                            expired++;
                        } else {
                            pending++;
                        }
                    } else if (d.approved) {
                        approved++;
                        approvers.merge(String.valueOf(d.approver), 1, Integer::sum);
                    } else {
                        denied++;
                    }
                }
                default -> { }
            }
        }
        StringBuilder b = new StringBuilder().append(effects.size()).append(" calls decided: ").append(allowed)
                .append(" allowed, ").append(denied).append(" denied, ").append(approved).append(" approved");
        if (!approvers.isEmpty()) {
            b.append(" by ").append(String.join(", ", approvers.keySet()));
        }
        b.append(", ").append(expired).append(" expired, ").append(violations).append(violations == 1 ? " violation" : " violations");
        if (pending > 0) {
            b.append(", ").append(pending).append(" pending");
        }
        if (notJudged > 0) {
            b.append("; ").append(notJudged).append(" bound calls could not be checked (their decision lies before the package, or erasure removed what the check reads)");
        }
        return b.toString();
    }
}
