package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.gate.ArgsDigest;
import io.trailproof.core.gate.GateFields;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.policy.Effect;
import io.trailproof.core.policy.GateEvaluator;
import io.trailproof.core.policy.PolicyRejection;
import io.trailproof.core.redaction.Redactor;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Gates and approvals (src/site/gates.md): decisions on proposed actions, answers to asks, the gate
 * policy, and the {@code GATE_VIOLATION} of every bound call whose check failed.
 *
 * <p>Every decision, answer and policy is an event appended through {@link GateWrites} (the same
 * durable, replicated path as any write) before the caller is answered; the state they make is
 * read back from the log ({@link GateLog}), so it is the same on every node and after any restart.
 * One daemon thread follows the log (to record violations and wake long polls) and times long polls
 * out; no request thread waits for a person.
 */
public final class Gate implements Closeable {

    private static final System.Logger LOG = System.getLogger(Gate.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** The scope of the keys the gate itself records under (never a caller's Idempotency-Key scope, which is hex or empty). */
    private static final String KEY_SCOPE = "gate";
    /** The longest log whose first pass the start waits for (a few tens of milliseconds of reading). */
    static final long FIRST_PASS_AT_START_EVENTS = 50_000;
    /** The name of the decisions' table in the data directory: scratch, rebuilt from the log at each start. */
    public static final String DECISIONS_FILE = "gate-decisions";

    private final Ledger ledger;
    private final GateWrites writes;
    private final Redactor redactor;
    private final Duration askTimeout;
    private final Duration approvalValidFor;
    private final Clock clock;
    private final GateLog log;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    private final Map<String, List<CompletableFuture<Void>>> waiters = new HashMap<>();
    /** Violations being written now (by call event id), so a catch-up does not write one twice. */
    private final Map<String, Boolean> writing = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param redactor null when redaction is off
     * @param defaultEffect {@code gate.default}
     * @param decisionsFile the scratch file the gate keeps its decisions' table in, replaced at the start
     *                      and deleted at the close (src/site/gates.md#costs-and-limits)
     */
    public Gate(Ledger ledger, GateWrites writes, Redactor redactor, Effect defaultEffect, Duration askTimeout,
                Duration approvalValidFor, Clock clock, Path decisionsFile) {
        this.ledger = ledger;
        this.writes = writes;
        this.redactor = redactor;
        this.askTimeout = askTimeout;
        this.approvalValidFor = approvalValidFor;
        this.clock = clock;
        this.log = new GateLog(ledger, defaultEffect, this::wakeWaiters, decisionsFile);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "trailproof-gate");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Reads the log once (the state at start), then follows it. A log of at most
     * {@link #FIRST_PASS_AT_START_EVENTS} events is read before this returns; a longer one on the
     * gate's thread, so that the start does not grow with the log ({@link #loaded()}).
     */
    public void start() throws IOException {
        start(FIRST_PASS_AT_START_EVENTS);
    }

    /** {@link #start()} with the longest log read before returning chosen (tests: 0 leaves it all to the thread). */
    void start(long firstPassAtStartEvents) throws IOException {
        log.open();
        if (ledger.size() <= firstPassAtStartEvents) {
            log.catchUp();
        }   // else the first pass over the log runs on the gate's thread (follow, below)
        ledger.onSizeAdvanced(() -> {
            if (!closed && wakeQueued.compareAndSet(false, true)) {
                thread.execute(this::follow);
            }
        });
        thread.execute(this::follow);
    }

    /**
     * Whether the gate's state is read from the log as it was at the start. Until then a gate request
     * waits for that first pass (ingestion never does): {@code GET /health} lists {@code gate} under
     * {@code loading}.
     */
    public boolean loaded() {
        return log.loaded();
    }

    /** On the gate's thread: catch up, then write the violations not recorded yet. */
    private void follow() {
        wakeQueued.set(false);
        try {
            for (GateLog.Unrecorded u : log.unrecorded()) {
                recordViolation(u);
            }
        } catch (RuntimeException e) {
            if (!closed) {   // a first pass the stop interrupted is read again at the next start
                LOG.log(System.Logger.Level.WARNING, "the gate could not follow the log: " + e);
            }
        }
    }

    private void recordViolation(GateLog.Unrecorded u) {
        if (closed || writing.putIfAbsent(u.eventId(), Boolean.TRUE) != null) {
            return;
        }
        ObjectNode fields = NODES.objectNode();
        fields.put(EventFields.AGENT_ID, u.agentId());
        if (u.sessionId() != null) {
            fields.put(EventFields.SESSION_ID, u.sessionId());
        }
        fields.put(EventFields.ACTION_TYPE, GateFields.GATE_VIOLATION);
        ObjectNode out = fields.putObject(EventFields.ACTION_OUTPUT);
        out.put(GateFields.OUT_EVENT_ID, u.eventId());
        out.put("decision_id", u.decisionId());
        out.put(GateFields.OUT_CHECK, u.check().wireName());
        DedupeTable.Claim claim = claim("gate-violation", u.eventId(), u.check().wireName());
        if (claim == null) {
            writing.remove(u.eventId());
            return; // recorded already (seen on the next catch-up) or being recorded by another request
        }
        writes.append(fields, claim).whenComplete((stored, error) -> {
            claim.release();
            writing.remove(u.eventId());
            if (error != null) {
                LOG.log(System.Logger.Level.WARNING, "the GATE_VIOLATION of event " + u.eventId()
                        + " could not be written now; it is written at the next change or start: " + error);
            }
        });
    }

    /** A claim of a key the gate records under, or null when the key is recorded or held already. */
    private DedupeTable.Claim claim(String kind, String id, String content) {
        DedupeKey key = DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, KEY_SCOPE, kind, id);
        try {
            DedupeTable.Lookup found = ledger.dedupe().claimWhenLoaded(key,
                    DedupeKey.contentDigest(content.getBytes(StandardCharsets.UTF_8)));
            return found instanceof DedupeTable.Fresh f ? f.claim() : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ decisions

    /**
     * Decides a proposal and appends its {@code DECISION}; completes with the decision event's log
     * index once it is durable (or the recorded one, for a keyed retry).
     *
     * @param proposal validated event fields ({@code action_type} set)
     * @param claim the caller's Idempotency-Key claim, or null; the caller releases it
     */
    public CompletableFuture<Decided> decide(ObjectNode proposal, DedupeTable.Claim claim) {
        ObjectNode fields = redactor == null ? proposal : redactor.redact(proposal).fields();
        Instant now = clock.instant();
        String nowText = EventTime.formatRecordedAt(now);
        GateLog.Current current = log.current();
        ActivePolicy policy = current.policy();
        GateEvaluator evaluator = current.evaluator();
        GateEvaluator.QueryTest queries = policy == null ? q -> false : policy.queries().forProposal(fields, nowText);
        GateEvaluator.Verdict verdict = evaluator.decide(Proposals.asPolicyEvent(fields, now), queries);

        ObjectNode decision = NODES.objectNode();
        decision.set(EventFields.AGENT_ID, fields.get(EventFields.AGENT_ID));
        for (String f : List.of(EventFields.SESSION_ID, EventFields.SOURCE, EventFields.CAPTURE_METHOD,
                EventFields.ACTION_NAME, EventFields.ACTION_INPUT, EventFields.LABELS, EventFields.REDACTIONS)) {
            if (fields.hasNonNull(f)) {
                decision.set(f, fields.get(f));
            }
        }
        decision.put(EventFields.ACTION_TYPE, GateFields.DECISION);
        ObjectNode out = decision.putObject(EventFields.ACTION_OUTPUT);
        out.put(GateFields.OUT_DECISION, verdict.effect().wireName());
        out.put(GateFields.OUT_POLICY, verdict.policy());
        out.put(GateFields.OUT_RULE, verdict.rule());
        out.put(GateFields.OUT_REASON, verdict.reason());
        out.put(GateFields.OUT_POLICY_EVENT_ID, policy == null ? null : policy.eventId());
        out.put(GateFields.OUT_ARGS_SHA256, ArgsDigest.ofEvent(fields));
        out.put(GateFields.OUT_EXPIRES_AT, verdict.effect() == Effect.ASK
                ? EventTime.formatRecordedAt(now.plus(askTimeout)) : null);
        return writes.append(decision, claim).thenApply(stored -> new Decided(stored, out));
    }

    /**
     * A decision's write as it completed, with the {@code action_output} this service composed for it
     * (stored as given), so that its answer is made without reading the event back or copying it.
     */
    public record Decided(GateWrites.Stored stored, ObjectNode output) {
    }

    /** The body of the 201 answer of {@code POST /v1/decisions}, from the stored {@code DECISION} event at {@code logIndex}. */
    public byte[] decisionAnswer(long logIndex) throws IOException {
        JsonNode event = MAPPER.readTree(ledger.payloadAt(logIndex));
        return DecisionAnswers.of(event.path(EventFields.ID).asText(), event.path(EventFields.ACTION_OUTPUT),
                event.get(EventFields.ID), event.get(EventFields.LOG_INDEX), event.get(EventFields.HASH));
    }

    /**
     * The same for a decision this service just stored, from what it composed and where the write put
     * it: the same bytes as {@link #decisionAnswer(long)} reads from the stored event.
     */
    public byte[] decisionAnswer(Decided d) throws IOException {
        StoredEvent e = d.stored().event();
        return DecisionAnswers.of(e.id(), d.output(), TextNode.valueOf(e.id()), LongNode.valueOf(e.logIndex()),
                TextNode.valueOf(e.hash()));
    }

    private static ObjectNode eventRef(JsonNode event) {
        ObjectNode ref = NODES.objectNode();
        ref.set(EventFields.ID, event.get(EventFields.ID));
        ref.set(EventFields.LOG_INDEX, event.get(EventFields.LOG_INDEX));
        ref.set(EventFields.HASH, event.get(EventFields.HASH));
        return ref;
    }

    /** The state of a decision ({@code GET /v1/decisions/{id}}), or empty when no decision has that id. */
    public Optional<ObjectNode> decisionState(String id) {
        DecisionSnapshot s = log.decision(id);
        return s == null ? Optional.empty() : Optional.of(view(s));
    }

    /**
     * The state once it is no longer {@code pending}, or when {@code wait} passed (at most until the
     * ask expires); completes at once for a final state or an unknown id. Holds no thread while waiting.
     */
    public CompletableFuture<Optional<ObjectNode>> awaitDecision(String id, Duration wait) {
        DecisionSnapshot s = log.decision(id);
        long nowMicros = micros(clock.instant());
        if (s == null || wait.isZero() || !s.state(nowMicros).equals(DecisionSnapshot.PENDING)) {
            return CompletableFuture.completedFuture(Optional.ofNullable(s).map(this::view));
        }
        CompletableFuture<Void> woken = new CompletableFuture<>();
        synchronized (waiters) {
            waiters.computeIfAbsent(id, k -> new ArrayList<>()).add(woken);
        }
        long untilExpiry = Math.max(1, (s.expiresAtMicros() - nowMicros) / 1000 + 1);
        long delay = Math.min(wait.toMillis(), untilExpiry);
        thread.schedule(() -> {
            woken.complete(null);
        }, delay, TimeUnit.MILLISECONDS);
        // An answer that arrived between the look above and the registration wakes nobody: look again.
        DecisionSnapshot again = log.decision(id);
        if (!again.state(micros(clock.instant())).equals(DecisionSnapshot.PENDING)) {
            woken.complete(null);
        }
        return woken.thenApply(v -> {
            synchronized (waiters) {
                List<CompletableFuture<Void>> list = waiters.get(id);
                if (list != null) {
                    list.remove(woken);
                    if (list.isEmpty()) {
                        waiters.remove(id);
                    }
                }
            }
            return Optional.ofNullable(log.decision(id)).map(this::view);
        });
    }

    private void wakeWaiters(String decisionId) {
        List<CompletableFuture<Void>> list;
        synchronized (waiters) {
            list = waiters.get(decisionId);
            list = list == null ? List.of() : List.copyOf(list);
        }
        list.forEach(f -> thread.execute(() -> f.complete(null)));
    }

    private ObjectNode view(DecisionSnapshot s) {
        ObjectNode o = NODES.objectNode();
        o.put("decision_id", s.id());
        o.put("state", s.state(micros(clock.instant())));
        o.put("decision", s.effect());
        o.put("agent_id", s.agentId());
        o.put("session_id", s.sessionId());
        o.put("rule", s.rule());
        o.put("reason", s.reason());
        o.put("args_sha256", s.argsSha256());
        o.put("expires_at", time(s.expiresAtMicros()));
        o.put("approver", s.approver());
        o.put("valid_until", time(s.validUntilMicros()));
        o.put("approval_id", s.approvalId());
        o.put("used", s.usedBy() != null);
        o.put("used_by", s.usedBy());
        return o;
    }

    // ------------------------------------------------------------------ approvals

    /** The asks waiting for a person, oldest first, each with its proposed call. */
    public List<ObjectNode> pending(int limit) throws IOException {
        List<ObjectNode> out = new ArrayList<>();
        for (DecisionSnapshot s : log.pending(micros(clock.instant()), limit)) {
            JsonNode event = MAPPER.readTree(ledger.payloadAt(s.logIndex()));
            ObjectNode o = view(s);
            o.set("action_name", event.path(EventFields.ACTION_NAME).isMissingNode() ? NODES.nullNode()
                    : event.get(EventFields.ACTION_NAME));
            o.set("action_input", event.path(EventFields.ACTION_INPUT).isMissingNode() ? NODES.nullNode()
                    : event.get(EventFields.ACTION_INPUT));
            o.set("labels", event.path(EventFields.LABELS).isMissingNode() ? NODES.nullNode() : event.get(EventFields.LABELS));
            o.set("requested_at", event.get(EventFields.RECORDED_AT));
            o.set("event", eventRef(event));
            out.add(o);
        }
        return out;
    }

    /**
     * Answers a pending ask: appends its {@code APPROVAL} and completes with its log index once durable.
     *
     * @param approver who answers: a key's name, or a signed-in person's; never a key
     * @throws GateRefusal UNKNOWN for no such decision; NOT_PENDING when it is not a pending ask (an
     *     allow or deny, answered already, expired, or being answered by another request right now)
     */
    public CompletableFuture<GateWrites.Stored> answer(String decisionId, boolean approve, String comment,
                                                       String approver) throws GateRefusal {
        DecisionSnapshot s = log.decision(decisionId);
        if (s == null) {
            throw new GateRefusal(GateRefusal.Kind.UNKNOWN, "no decision with id " + decisionId);
        }
        Instant now = clock.instant();
        String state = s.state(micros(now));
        if (!state.equals(DecisionSnapshot.PENDING)) {
            throw new GateRefusal(GateRefusal.Kind.NOT_PENDING, "decision " + decisionId + " is " + state
                    + "; only a pending ask can be answered");
        }
        DedupeTable.Claim claim = claim("approval", decisionId, approve + "\n" + approver + "\n" + comment);
        if (claim == null) {
            throw new GateRefusal(GateRefusal.Kind.NOT_PENDING, "decision " + decisionId
                    + " is being answered or was answered already; only a pending ask can be answered");
        }
        try {
            JsonNode decisionEvent = MAPPER.readTree(ledger.payloadAt(s.logIndex()));
            ObjectNode fields = NODES.objectNode();
            fields.put(EventFields.AGENT_ID, s.agentId());
            if (s.sessionId() != null) {
                fields.put(EventFields.SESSION_ID, s.sessionId());
            }
            fields.put(EventFields.ACTION_TYPE, GateFields.APPROVAL);
            if (decisionEvent.hasNonNull(EventFields.ACTION_NAME)) {
                fields.set(EventFields.ACTION_NAME, decisionEvent.get(EventFields.ACTION_NAME));
            }
            ObjectNode out = fields.putObject(EventFields.ACTION_OUTPUT);
            out.put("decision_id", decisionId);
            out.put(GateFields.OUT_APPROVED, approve);
            out.put(GateFields.OUT_ARGS_SHA256, s.argsSha256());
            out.put(GateFields.OUT_APPROVER, approver);
            out.put(GateFields.OUT_COMMENT, comment);
            out.put(GateFields.OUT_VALID_UNTIL, approve ? EventTime.formatRecordedAt(now.plus(approvalValidFor)) : null);
            if (comment != null && redactor != null) {
                // The comment is a person's text: redacted like any client text; the service values are not.
                ObjectNode text = NODES.objectNode();
                text.putObject(EventFields.ACTION_OUTPUT).put(GateFields.OUT_COMMENT, comment);
                Redactor.Redacted r = redactor.redact(text);
                if (!r.counts().isEmpty()) {
                    out.set(GateFields.OUT_COMMENT, r.fields().path(EventFields.ACTION_OUTPUT).get(GateFields.OUT_COMMENT));
                    fields.set(EventFields.REDACTIONS, r.fields().get(EventFields.REDACTIONS));
                }
            }
            return writes.append(fields, claim).whenComplete((stored, error) -> claim.release());
        } catch (IOException | RuntimeException e) {
            claim.release();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /** The body of the 201 answer of {@code POST /v1/approvals/{id}}, from the stored {@code APPROVAL} at {@code logIndex}. */
    public byte[] approvalAnswer(long logIndex) throws IOException {
        JsonNode event = MAPPER.readTree(ledger.payloadAt(logIndex));
        JsonNode out = event.path(EventFields.ACTION_OUTPUT);
        ObjectNode o = NODES.objectNode();
        o.set("decision_id", out.get("decision_id"));
        o.put("state", out.path(GateFields.OUT_APPROVED).asBoolean() ? "approved" : "denied");
        for (String f : List.of(GateFields.OUT_APPROVER, GateFields.OUT_COMMENT, GateFields.OUT_VALID_UNTIL,
                GateFields.OUT_ARGS_SHA256)) {
            o.set(f, out.path(f).isMissingNode() ? NODES.nullNode() : out.get(f));
        }
        o.set("event", eventRef(event));
        return MAPPER.writeValueAsBytes(o);
    }

    // ------------------------------------------------------------------ the gate policy

    /**
     * Records a gate policy document as an event of {@value GateFields#POLICIES_AGENT}; it is active
     * once durable (the latest one is).
     *
     * @throws PolicyRejection naming the policy, rule and key; nothing is recorded then
     */
    public CompletableFuture<GateWrites.Stored> putPolicy(JsonNode document) throws PolicyRejection {
        ActivePolicy.parse(document);
        return writes.append(policyEvent(document), null);
    }

    private static ObjectNode policyEvent(JsonNode document) {
        ObjectNode fields = NODES.objectNode();
        fields.put(EventFields.AGENT_ID, GateFields.POLICIES_AGENT);
        fields.put(EventFields.ACTION_TYPE, GateFields.GATE_POLICY);
        fields.put(EventFields.ACTION_NAME, "gate_policy");
        fields.putObject(EventFields.ACTION_INPUT).set(ActivePolicy.DOCUMENT, document);
        return fields;
    }

    /**
     * {@code gate.policy-file} at start: recorded when it differs from the active policy (under a key
     * made of its content, so nodes starting together record it once).
     *
     * @throws PolicyRejection when the file's document is malformed
     */
    public Optional<CompletableFuture<GateWrites.Stored>> adoptFile(JsonNode document) throws PolicyRejection {
        ActivePolicy.parse(document);
        ActivePolicy active = log.active();
        if (active != null && active.document().equals(document)) {
            return Optional.empty();
        }
        String digest = HexFormat.of().formatHex(EventHash.sha256(Rfc8785.canonicalize(document)));
        DedupeTable.Claim claim = claim("policy-file", digest, digest);
        if (claim == null) {
            return Optional.empty();
        }
        return Optional.of(writes.append(policyEvent(document), claim).whenComplete((s, e) -> claim.release()));
    }

    /** {@code {"event_id", "policy"}} of the active gate policy, or empty when none was recorded. */
    public Optional<ObjectNode> activePolicy() {
        ActivePolicy p = log.active();
        if (p == null) {
            return Optional.empty();
        }
        ObjectNode o = NODES.objectNode();
        o.put("event_id", p.eventId());
        o.set("policy", p.document());
        return Optional.of(o);
    }

    /** The id of the stored event at {@code logIndex} (for {@code Location} and answers). */
    public String eventId(long logIndex) throws IOException {
        return MAPPER.readTree(ledger.payloadAt(logIndex)).path(EventFields.ID).asText();
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
        try {
            log.close();   // waits for a catch-up in progress
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "the gate's decision table could not be deleted: " + e);
        }
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }

    private static String time(long micros) {
        return micros < 0 ? null : EventTime.formatRecordedAt(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L),
                Math.floorMod(micros, 1_000_000L) * 1_000L));
    }
}
