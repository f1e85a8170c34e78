package io.trailproof.gate;

import io.trailproof.core.gate.Bindings;
import io.trailproof.core.gate.GateEvent;
import io.trailproof.core.gate.GateFields;
import io.trailproof.core.policy.Effect;
import io.trailproof.core.policy.GateEvaluator;
import io.trailproof.core.policy.PolicyEvent;
import io.trailproof.core.policy.PolicyEventReader;
import io.trailproof.ledger.Ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The gate's state, derived from the log in log order, so that every node of a cluster (which
 * applies the same log) holds the same: the active gate policy, the rules' per-scope history, every
 * decision and what became of it ({@link Bindings}, kept outside the heap by {@link LoggedDecisions}),
 * and the bound calls whose failed check has no {@code GATE_VIOLATION} yet. Nothing here is stored
 * elsewhere: it is rebuilt by one pass over the log at start, then kept up as the log grows.
 *
 * <p>{@link #catchUp} brings the state to the ledger's readable size; every reader calls it first,
 * so an event acknowledged before a request counts in its answer. All access is under this
 * object's lock. A new policy is taken when its event is reached; the rules' history is then built
 * again by one pass over the log before it (policy changes are rare; decisions wait for it).
 */
final class GateLog {

    private static final System.Logger LOG = System.getLogger(GateLog.class.getName());

    /** What the gate knows of a decision beyond its binding: where it is, and what an approver is shown. */
    record DecisionInfo(long logIndex, String sessionId, String rule, String reason, long recordedAtMicros) {
    }

    /** A bound call whose check failed, waiting for its {@code GATE_VIOLATION}. */
    record Unrecorded(String eventId, String agentId, String sessionId, String decisionId, Bindings.Check check) {
    }

    private final Ledger ledger;
    private final Effect defaultEffect;
    private final PolicyEventReader reader = new PolicyEventReader(Set.of(GateFields.DECISION_ID));

    private long cursor;
    /** See {@link #loaded()}; written under the lock, read without it. */
    private volatile boolean loaded;
    private final Path decisionsFile;
    /** Set by {@link #open}. */
    private LoggedDecisions decisions;
    private Bindings bindings;
    private boolean closed;
    private final Map<String, Unrecorded> unrecorded = new LinkedHashMap<>();
    /** Asks without an answer, oldest first; expired ones leave when a listing passes them. */
    private final Set<String> asks = new LinkedHashSet<>();
    private ActivePolicy active;
    private GateEvaluator evaluator;
    /** Told of each decision an approval answered, after the catch-up that saw it. */
    private final Consumer<String> answered;

    /** @param decisionsFile the scratch file of the decisions' table (replaced by {@link #open}, deleted by {@link #close}) */
    GateLog(Ledger ledger, Effect defaultEffect, Consumer<String> answered, Path decisionsFile) {
        this.ledger = ledger;
        this.decisionsFile = decisionsFile;
        this.defaultEffect = defaultEffect;
        this.answered = answered;
        this.evaluator = new GateEvaluator(List.of(), defaultEffect);
    }

    /**
     * Takes the latest policy document of the log (found by the policies agent's positions, not by a
     * scan). The first {@link #catchUp} then reads the whole log once: the gate's thread runs it after
     * the start ({@link #loaded}), and a reader that comes first waits for it under this object's lock.
     */
    synchronized void open() throws IOException {
        decisions = LoggedDecisions.open(ledger, decisionsFile);
        bindings = new Bindings(decisions);
        long[] positions = ledger.agentPositions(GateFields.POLICIES_AGENT);
        long size = ledger.size();
        for (int i = positions.length - 1; i >= 0; i--) {
            if (positions[i] < size) {
                ActivePolicy p = ActivePolicy.read(ledger.payloadAt(positions[i]), defaultEffect);
                if (p != null) {
                    active = p;
                    evaluator = p.evaluator();
                    break;
                }
            }
        }
    }

    /** True once a catch-up reached the log's size as it was at the start (the first pass is done). */
    boolean loaded() {
        return loaded;
    }

    /** Brings the state to the ledger's readable size. */
    synchronized void catchUp() {
        if (closed) {
            throw new IllegalStateException("the gate is closed");
        }
        long end = ledger.size();
        if (cursor >= end) {
            loaded = true;
            return;
        }
        List<String> approvals = new ArrayList<>();
        try {
            ledger.scan(cursor, end, (index, payload) -> {
                accept(index, payload, approvals);
                cursor = index + 1;
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        cursor = Math.max(cursor, end);
        loaded = true;
        approvals.forEach(answered);
    }

    private void accept(long index, byte[] payload, List<String> approvals) throws IOException {
        PolicyEvent e;
        try {
            e = reader.read(payload);
        } catch (IllegalArgumentException unreadable) {
            return; // not a readable event: the chain checks report it
        }
        String type = e.actionType();
        if (GateFields.POLICIES_AGENT.equals(e.agentId())) {
            if (GateFields.GATE_POLICY.equals(type) && (active == null || index > active.logIndex())) {
                adopt(index, payload);
            }
            return;
        }
        boolean serviceWritten = GateFields.serviceWritten(type);
        if (!serviceWritten) {
            evaluator.observe(e);
        }
        if (!serviceWritten && !e.captured().containsKey(GateFields.DECISION_ID)) {
            return;
        }
        GateEvent g;
        try {
            g = GateEvent.read(payload);
        } catch (IllegalArgumentException unreadable) {
            return; // as above
        }
        if (g == null) {
            return;
        }
        decisions.applying(index, e.sessionId(), g);
        switch (g.kind()) {
            case DECISION -> {
                if ("ask".equals(g.effect())) {
                    asks.add(g.id());
                }
            }
            case APPROVAL -> {
                approvals.add(g.decisionId());
                asks.remove(g.decisionId());
            }
            case VIOLATION -> unrecorded.remove(g.violationEventId());
            default -> { }
        }
        Bindings.Verdict v = bindings.accept(g);
        if (v != null && !v.passed()) {
            unrecorded.put(g.id(), new Unrecorded(g.id(), g.agentId(), e.sessionId(), g.decisionId(), v.check()));
        }
    }

    /** Takes the policy at {@code index} and builds its rules' history from the log before it. */
    private void adopt(long index, byte[] payload) throws IOException {
        ActivePolicy p = ActivePolicy.read(payload, defaultEffect);
        if (p == null) {
            LOG.log(System.Logger.Level.WARNING, "the gate policy at log_index " + index
                    + " cannot be read; the previous one stays active");
            return;
        }
        GateEvaluator fresh = p.evaluator();
        if (fresh.size() > 0) {
            ledger.scan(0, index, (i, bytes) -> {
                try {
                    PolicyEvent h = reader.read(bytes);
                    if (!GateFields.POLICIES_AGENT.equals(h.agentId()) && !GateFields.serviceWritten(h.actionType())) {
                        fresh.observe(h);
                    }
                } catch (IllegalArgumentException unreadable) {
                    // skipped, as in the live pass
                }
            });
        }
        active = p;
        evaluator = fresh;
    }

    // ------------------------------------------------------------------ reads (after catchUp)

    synchronized ActivePolicy active() {
        catchUp();
        return active;
    }

    /** The active policy and its evaluator, from one catch-up. */
    record Current(ActivePolicy policy, GateEvaluator evaluator) {
    }

    /** {@link #active()} and {@link #evaluator()} together: what a decision reads. */
    synchronized Current current() {
        catchUp();
        return new Current(active, evaluator);
    }

    /** The evaluator of the active policy, caught up (its own lock guards each decision). */
    synchronized GateEvaluator evaluator() {
        catchUp();
        return evaluator;
    }

    /** A decision's binding state and info, or null when unknown; the snapshot is taken under the lock. */
    synchronized DecisionSnapshot decision(String id) {
        catchUp();
        return snapshot(id);
    }

    private DecisionSnapshot snapshot(String id) {
        LoggedDecisions.Known e = decisions.entry(id);
        if (e == null) {
            return null;
        }
        Bindings.Decision d = e.decision();
        DecisionInfo info = e.info();
        return new DecisionSnapshot(d.id, d.agentId, info.sessionId(), d.effect, info.rule(), info.reason(),
                d.argsSha256, d.expiresAtMicros, d.approved, d.approver, d.validUntilMicros, d.approvalId, d.usedBy,
                info.logIndex(), info.recordedAtMicros());
    }

    /** The asks without an answer whose {@code expires_at} is not before {@code nowMicros}, oldest first. */
    synchronized List<DecisionSnapshot> pending(long nowMicros, int limit) {
        catchUp();
        List<DecisionSnapshot> out = new ArrayList<>();
        for (Iterator<String> it = asks.iterator(); it.hasNext() && out.size() < limit; ) {
            DecisionSnapshot s = snapshot(it.next());
            if (s == null || !s.state(nowMicros).equals(DecisionSnapshot.PENDING)) {
                it.remove();
            } else {
                out.add(s);
            }
        }
        return out;
    }

    /** The bound calls whose failed check has no {@code GATE_VIOLATION} yet. */
    synchronized List<Unrecorded> unrecorded() {
        catchUp();
        return List.copyOf(unrecorded.values());
    }

    /** Deletes the decisions' table; the state is not read after this. */
    synchronized void close() throws IOException {
        closed = true;
        if (decisions != null) {
            decisions.close();
        }
    }
}
