package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.gate.Bindings;
import io.trailproof.core.gate.GateEvent;
import io.trailproof.core.gate.GateFields;
import io.trailproof.ledger.Ledger;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gate's decisions ({@link Bindings.Store}) kept outside the heap: what a binding check needs in a
 * {@link DecisionTable}, what is only shown read back from the decision's events in the log, and the
 * {@link #CACHED} most recently used decisions whole in memory (a decision is read, answered and used
 * within moments of being made). The heap therefore holds a bounded number of decisions however many
 * the log has.
 *
 * <p>A binding reads only the table, whose rows are written as the events are applied, so its
 * verdicts do not depend on which decisions are cached. Shown members read back from an event whose
 * content was erased since are shown as erased (absent). Not thread-safe: {@link GateLog}'s lock
 * guards it.
 */
final class LoggedDecisions implements Bindings.Store, Closeable {

    /** Decisions kept whole in memory, most recently used first out last. */
    static final int CACHED = 4096;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A decision with what is shown of it. */
    record Known(Bindings.Decision decision, GateLog.DecisionInfo info) {
    }

    private final Ledger ledger;
    private final DecisionTable table;
    private final Map<String, Known> cache;
    /** The event being applied: its log index, session, rule and reason (see {@link #applying}). */
    private long at = -1;
    private GateLog.DecisionInfo applying;

    private LoggedDecisions(Ledger ledger, DecisionTable table, int cached) {
        this.ledger = ledger;
        this.table = table;
        this.cache = new LinkedHashMap<>(Math.min(cached, CACHED) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Known> eldest) {
                return size() > cached;
            }
        };
    }

    /** An empty store whose table lives in {@code file} (scratch, replaced). */
    static LoggedDecisions open(Ledger ledger, Path file) throws IOException {
        return open(ledger, file, CACHED);
    }

    /** {@link #open(Ledger, Path)} keeping {@code cached} decisions whole in memory. */
    static LoggedDecisions open(Ledger ledger, Path file, int cached) throws IOException {
        return new LoggedDecisions(ledger, DecisionTable.open(file), cached);
    }

    /**
     * Names the event the bindings are about to take: its log index, and for a decision what is
     * shown of it. Called before each {@link Bindings#accept}.
     */
    void applying(long logIndex, String sessionId, GateEvent e) {
        at = logIndex;
        applying = e.kind() == GateEvent.Kind.DECISION
                ? new GateLog.DecisionInfo(logIndex, sessionId, e.rule(), e.reason(), e.recordedAtMicros())
                : null;
    }

    /** A decision and what is shown of it, or null when unknown. */
    Known entry(String id) {
        Known e = cache.get(id);
        if (e != null) {
            return e;
        }
        DecisionTable.Row row = table.find(id);
        if (row == null) {
            return null;
        }
        e = readBack(id, row);
        cache.put(id, e);
        return e;
    }

    /** Decisions held. */
    long size() {
        return table.size();
    }

    @Override
    public Bindings.Decision get(String id) {
        Known e = entry(id);
        return e == null ? null : e.decision();
    }

    @Override
    public void add(Bindings.Decision d) {
        if (applying == null) {
            throw new IllegalStateException("a decision is added only while its DECISION event is applied");
        }
        table.add(d.id, effectCode(d.effect), d.argsSha256, d.expiresAtMicros, at);
        cache.put(d.id, new Known(d, applying));
    }

    @Override
    public void answered(Bindings.Decision d) {
        table.answer(d.id, Boolean.TRUE.equals(d.approved), d.validUntilMicros, at);
    }

    @Override
    public void used(Bindings.Decision d) {
        table.use(d.id, at);
    }

    @Override
    public void close() throws IOException {
        cache.clear();
        table.close();
    }

    // ------------------------------------------------------------------ reading back

    /** The decision {@code id} from its row, with what is shown read from its events in the log. */
    private Known readBack(String id, DecisionTable.Row row) {
        try {
            JsonNode decided = MAPPER.readTree(ledger.payloadAt(row.decisionAt()));
            if (!id.equals(text(decided, EventFields.ID))) {
                throw new IllegalStateException("the gate's table places decision " + id + " at log_index "
                        + row.decisionAt() + ", which holds another event");
            }
            GateEvent g = GateEvent.of(decided);
            String effect = switch (row.effect()) {
                case DecisionTable.ALLOW -> "allow";
                case DecisionTable.DENY -> "deny";
                case DecisionTable.ASK -> "ask";
                default -> g == null ? null : g.effect();
            };
            // A digest the row does not hold (not lower-case hex) and an effect it holds as OTHER can never
            // pass a check, whatever their text: that text is read back to be shown as it was written.
            String args = row.argsSha256() != null ? HexFormat.of().formatHex(row.argsSha256())
                    : g == null ? null : g.argsSha256();
            Bindings.Decision d = new Bindings.Decision(id, text(decided, EventFields.AGENT_ID), effect, args,
                    row.expiresAtMicros());
            if (row.answerAt() >= 0) {
                JsonNode answer = MAPPER.readTree(ledger.payloadAt(row.answerAt()));
                d.approved = row.answer() == DecisionTable.APPROVED;
                d.approver = text(answer.path(EventFields.ACTION_OUTPUT), GateFields.OUT_APPROVER);
                d.validUntilMicros = row.validUntilMicros();
                d.approvalId = text(answer, EventFields.ID);
            }
            if (row.usedAt() >= 0) {
                d.usedBy = text(MAPPER.readTree(ledger.payloadAt(row.usedAt())), EventFields.ID);
            }
            GateLog.DecisionInfo info = new GateLog.DecisionInfo(row.decisionAt(), text(decided, EventFields.SESSION_ID),
                    g == null ? null : g.rule(), g == null ? null : g.reason(),
                    GateEvent.micros(text(decided, EventFields.RECORDED_AT)));
            return new Known(d, info);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int effectCode(String effect) {
        if (effect == null) {
            return DecisionTable.OTHER;
        }
        return switch (effect) {
            case "allow" -> DecisionTable.ALLOW;
            case "deny" -> DecisionTable.DENY;
            case "ask" -> DecisionTable.ASK;
            default -> DecisionTable.OTHER;
        };
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || !v.isTextual() ? null : v.textValue();
    }
}
