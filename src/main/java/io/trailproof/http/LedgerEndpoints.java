package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventRejection;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.KeyedAnswer;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.ledger.LedgerViews.InclusionProof;
import io.trailproof.ledger.LedgerViews.Stats;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.nio.charset.StandardCharsets;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.Optional;

/**
 * The ingestion, lookup, chain and Merkle endpoints (src/site/http-api.md#endpoints). Each one parses its input,
 * calls the {@link Ledger} and writes the answer; the rules live in the core and the ledger.
 */
final class LedgerEndpoints {

    /** The event object is nesting level 1 (src/site/events.md#accepted-fields); a batch array adds one level above it. */
    private static final int MAX_EVENT_DEPTH = EventLimits.MAX_NESTING_DEPTH;

    private static final HexFormat HEX = HexFormat.of();

    private final Ledger ledger;
    private final RequestBodies bodies;
    private final int maxBatchEvents;
    private final IdempotentRequests idempotency;

    // Answers ?format=tlog-proof (src/site/checkpoints.md); null until HttpApi wires the checkpoints in.
    private TlogProofEndpoint tlogProof;
    // Cluster mode: writes go through the topic; null in the embedded mode.
    private ClusterWrites cluster;

    LedgerEndpoints(Ledger ledger, RequestBodies bodies, int maxBatchEvents, IdempotentRequests idempotency) {
        this.ledger = ledger;
        this.bodies = bodies;
        this.maxBatchEvents = maxBatchEvents;
        this.idempotency = idempotency;
    }

    void register(Router router) {
        router.add("POST", "/v1/events", ApiKey.Role.INGEST, (ex, p) -> postEvent(ex), this::postEventNonBlocking)
                .add("POST", "/v1/batch", ApiKey.Role.INGEST, (ex, p) -> postBatch(ex))
                .get("/v1/events/{id}", this::getEvent)
                .get("/v1/agents", (ex, p) -> agents(ex))
                .get("/v1/stats", (ex, p) -> stats(ex))
                .get("/v1/verify", (ex, p) -> verify(ex))
                .add("GET", "/v1/merkle/root", ApiKey.Role.READ, (ex, p) -> root(ex),
                        ex -> treeChecked(this::root))
                .add("GET", "/v1/merkle/proof", ApiKey.Role.READ, (ex, p) -> proof(ex),
                        ex -> tlogProof != null && tlogProof.asked(ex) ? tlogProof.start(ex)
                                : treeChecked(this::proof))
                .get("/v1/merkle/consistency", (ex, p) -> consistency(ex));
    }

    /** Lets writes go through the cluster's topic (cluster mode) instead of the local ledger. */
    LedgerEndpoints withCluster(ClusterWrites writes) {
        this.cluster = writes;
        return this;
    }

    private void postEvent(HttpServerExchange ex) throws Exception {
        if (cluster != null) {
            cluster.await(postEventNonBlocking(ex)).write(ex);
            return;
        }
        byte[] body = bodies.read(ex);
        IdempotentRequests.Start start = idempotency.begin(ex, body);
        if (start instanceof IdempotentRequests.Replayed r) {
            r.answer().write(ex);
            return;
        }
        if (start == null) {
            answerStored(ex, ledger.append(List.of(validEvent(body))).get(0));
            return;
        }
        DedupeTable.Claim claim = ((IdempotentRequests.Claimed) start).claim();
        try {
            ObjectNode fields = validEvent(body);
            answerStored(ex, ledger.append(List.of(fields), new KeyedAnswer(claim, IdempotentRequests::singleAnswer)).get(0));
        } finally {
            claim.release();   // nothing once the answer is recorded; otherwise nothing was stored
        }
    }

    /**
     * The same on the I/O thread: parsing and validating one small event is quick; sequencing and
     * the force are handed to the ledger, which groups concurrent single events and completes the
     * answer once the event is durable. No worker thread waits for the disk. A replay reads two
     * small frames, as a proof does.
     */
    private CompletionStage<Router.Answer> postEventNonBlocking(HttpServerExchange ex) throws Exception {
        byte[] body = bodies.read(ex);
        IdempotentRequests.Start start = idempotency.begin(ex, body);
        if (start instanceof IdempotentRequests.Replayed r) {
            return CompletableFuture.completedFuture(r.answer());
        }
        if (cluster != null) {
            DedupeTable.Claim claim = start == null ? null : ((IdempotentRequests.Claimed) start).claim();
            try {
                return cluster.single(validEvent(body), claim);
            } catch (Exception | Error e) {
                if (claim != null) {
                    claim.release();
                }
                throw e;
            }
        }
        if (start == null) {
            ObjectNode fields = validEvent(body);
            return ledger.appendAsync(fields).thenApply(outcome -> e -> answerStored(e, outcome));
        }
        DedupeTable.Claim claim = ((IdempotentRequests.Claimed) start).claim();
        CompletableFuture<AppendOutcome> stored;
        try {
            stored = ledger.appendAsync(validEvent(body), new KeyedAnswer(claim, IdempotentRequests::singleAnswer));
        } catch (Exception | Error e) {
            claim.release();
            throw e;
        }
        return stored.whenComplete((o, error) -> claim.release()).thenApply(outcome -> e -> answerStored(e, outcome));
    }

    private ObjectNode validEvent(byte[] body) throws Exception {
        JsonNode node = parse(body, MAX_EVENT_DEPTH, Integer.MAX_VALUE, "");
        try {
            return EventValidator.validate(node);
        } catch (EventRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    static void answerStored(HttpServerExchange ex, AppendOutcome outcome) throws ApiException {
        if (!outcome.ok()) {
            throw ApiException.badRequest(outcome.error());
        }
        ex.getResponseHeaders().put(Headers.LOCATION, "/v1/events/" + outcome.event().id());
        Responses.bytes(ex, 201, outcome.event().payload());
    }

    private void postBatch(HttpServerExchange ex) throws Exception {
        byte[] raw = bodies.read(ex);
        IdempotentRequests.Start start = idempotency.begin(ex, raw);
        if (start instanceof IdempotentRequests.Replayed r) {
            r.answer().write(ex);
            return;
        }
        DedupeTable.Claim claim = start == null ? null : ((IdempotentRequests.Claimed) start).claim();
        try {
            postBatch(ex, raw, claim);
        } finally {
            if (claim != null) {
                claim.release();   // nothing once the answer is recorded; otherwise nothing was stored
            }
        }
    }

    /** A batch; with a claim, its answer is recorded in the group of its events (even when none is stored). */
    private void postBatch(HttpServerExchange ex, byte[] raw, DedupeTable.Claim claim) throws Exception {
        // The batch length is enforced while parsing: the parse stops at the first item too many.
        JsonNode node = parse(raw, MAX_EVENT_DEPTH + 1, maxBatchEvents, "batch");
        if (!node.isArray()) {
            throw ApiException.badRequest("the batch body must be a JSON array of events");
        }
        if (node.isEmpty()) {
            throw ApiException.badRequest("the batch is empty; send at least one event");
        }
        if (node.size() > maxBatchEvents) {
            throw ApiException.badRequest("the batch has " + node.size() + " events; the limit is " + maxBatchEvents);
        }
        // Sealing costs heap per event beyond what the bytes say for small events: hold that too.
        bodies.holdEvents(ex, node.size());
        String[] errors = new String[node.size()];
        List<ObjectNode> valid = new ArrayList<>(node.size());
        List<Integer> validIndex = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            try {
                valid.add(EventValidator.validate(node.get(i)));
                validIndex.add(i);
            } catch (EventRejection e) {
                errors[i] = e.getMessage();
            }
        }
        if (cluster != null) {
            if (!valid.isEmpty() || claim != null) {
                cluster.await(cluster.batch(valid, validIndex, errors, claim)).write(ex);
            } else {
                Responses.bytes(ex, 207, BatchAnswer.write(errors, List.of()));
            }
            return;
        }
        AppendOutcome[] outcomes = new AppendOutcome[node.size()];
        if (!valid.isEmpty() || claim != null) {
            List<AppendOutcome> stored = claim == null ? ledger.append(valid)
                    : ledger.append(valid, new KeyedAnswer(claim, o -> IdempotentRequests.batchAnswer(errors, validIndex, o)));
            for (int j = 0; j < stored.size(); j++) {
                outcomes[validIndex.get(j)] = stored.get(j);
            }
        }
        boolean allOk = true;
        List<byte[]> events = new ArrayList<>(valid.size());
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null || !outcomes[i].ok()) {
                allOk = false;
                if (errors[i] == null) {
                    errors[i] = outcomes[i].error();
                }
            } else {
                events.add(outcomes[i].event().payload());
            }
        }
        Responses.bytes(ex, allOk ? 201 : 207, BatchAnswer.write(errors, events));
    }

    private void getEvent(HttpServerExchange ex, String rawId) throws Exception {
        String id = Params.eventId(rawId, "event id");
        Optional<byte[]> payload = ledger.eventPayload(id);
        if (payload.isEmpty()) {
            throw ApiException.notFound("no event with id " + id);
        }
        AccessRecording.results(ex, 1);
        Responses.bytes(ex, 200, payload.get());
    }

    private void agents(HttpServerExchange ex) throws Exception {
        ArrayNode out = Responses.MAPPER.createArrayNode();
        for (AgentSummary a : ledger.agents()) {
            ObjectNode o = out.addObject();
            o.put("agent_id", a.agentId());
            o.put("event_count", a.eventCount());
            o.put("last_activity", a.lastActivity());
            o.put("chain_valid", a.chainValid()); // always a verdict: the ledger verifies an unverified chain first
            o.put("head_sequence", a.headSequence());
            o.put("head_hash", a.headHash());
            o.put("verified_at", a.verifiedAt() == null ? null : a.verifiedAt().toString());
        }
        Responses.json(ex, 200, out);
    }

    private void stats(HttpServerExchange ex) throws Exception {
        Stats s = ledger.stats();
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("total_events", s.totalEvents());
        o.put("events_last_24h", s.eventsLast24h());
        o.put("active_agents", s.activeAgents());
        o.put("chain_health", s.chainHealth());
        o.put("total_agents", s.totalAgents());
        o.put("tree_size", s.treeSize());
        o.put("merkle_root", s.merkleRoot());
        Responses.json(ex, 200, o);
    }

    private void verify(HttpServerExchange ex) throws Exception {
        String agentId = new Params(ex).required("agent_id");
        ChainReport r = ledger.verify(agentId)
                .orElseThrow(() -> ApiException.notFound("no agent with id " + Params.shorten(agentId)));
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("valid", r.valid());
        o.put("agent_id", r.agentId());
        if (r.valid()) {
            o.put("events_verified", r.eventsVerified());
            o.put("head_sequence", r.headSequence());
            o.put("head_hash", r.headHash());
            o.put("erased", r.erased());
        } else {
            var f = r.failure().orElseThrow();
            o.put("error", f.message());
            o.put("sequence", f.sequence());
            o.put("events_verified", r.eventsVerified());
            o.put("check", f.kind().name().toLowerCase(Locale.ROOT));
            o.put("expected", f.expected());
            o.put("actual", f.actual());
            o.put("erased", r.erased());
        }
        Responses.json(ex, 200, o);
    }

    /**
     * {@code answer} once the tree's check after the start is done (at once, nearly always): the I/O
     * thread never waits for it (src/site/operations.md#start-up).
     */
    private CompletionStage<Router.Answer> treeChecked(Router.Answer answer) {
        CompletableFuture<Void> checked = ledger.whenTreeChecked();
        return checked.isDone() ? CompletableFuture.completedFuture(answer) : checked.thenApply(v -> answer);
    }

    /**
     * Answered on the I/O thread (it is registered non-blocking): the current root is in memory,
     * and an earlier one reads at most a few cached tree nodes, so no worker is woken for it.
     */
    private void root(HttpServerExchange ex) throws Exception {
        long current = ledger.size();
        long size = new Params(ex).wholeNumber("tree_size", 0, current);
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("root", HEX.formatHex(sized(() -> ledger.root(size))));
        o.put("tree_size", size);
        Responses.json(ex, 200, o);
    }

    /**
     * Also answered on the I/O thread: one event read and at most three tree nodes, all small
     * positioned reads, cost less than waking a worker (which made the p99 several milliseconds).
     */
    /** Lets {@code format=tlog-proof} be answered by {@code endpoint}; the JSON form stays here. */
    LedgerEndpoints withTlogProofs(TlogProofEndpoint endpoint) {
        this.tlogProof = endpoint;
        return this;
    }

    private void proof(HttpServerExchange ex) throws Exception {
        if (tlogProof != null && tlogProof.asked(ex)) {
            tlogProof.endpoint().handle(ex, null);
            return;
        }
        Params params = new Params(ex);
        String eventId = Params.eventId(params.required("event_id"), "event_id");
        long size = params.wholeNumber("tree_size", 1, ledger.size());
        InclusionProof p = sized(() -> ledger.inclusionProof(eventId, size))
                .orElseThrow(() -> ApiException.notFound("no event with id " + eventId));
        // Written as text: every value is a number, hex or the id checked above (a lowercase UUID), so
        // nothing needs escaping, and a tree of nodes was a fifth of a proof's cost on the I/O thread.
        // The same bytes as the tree's serialisation (LedgerEndpointsIT compares them).
        StringBuilder b = new StringBuilder(160 + 68 * p.siblings().size())
                .append("{\"event_id\":\"").append(p.eventId())
                .append("\",\"leaf_index\":").append(p.leafIndex())
                .append(",\"leaf_hash\":\"").append(HEX.formatHex(p.leafHash()))
                .append("\",\"tree_size\":").append(p.treeSize())
                .append(",\"root\":\"").append(HEX.formatHex(p.root())).append("\",\"siblings\":[");
        for (int i = 0; i < p.siblings().size(); i++) {
            b.append(i == 0 ? "\"" : ",\"").append(HEX.formatHex(p.siblings().get(i))).append('"');
        }
        Responses.bytes(ex, 200, b.append("]}").toString().getBytes(StandardCharsets.US_ASCII));
    }

    private void consistency(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        if (params.optional("from") == null) {
            throw ApiException.badRequest("parameter from is required");
        }
        long from = params.wholeNumber("from", 1, 0);
        long to = params.wholeNumber("to", 1, ledger.size());
        List<byte[]> proof = sized(() -> ledger.consistencyProof(from, to));
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("from", from);
        o.put("to", to);
        o.put("from_root", HEX.formatHex(ledger.root(from)));
        o.put("to_root", HEX.formatHex(ledger.root(to)));
        ArrayNode arr = o.putArray("proof");
        proof.forEach(h -> arr.add(HEX.formatHex(h)));
        Responses.json(ex, 200, o);
    }

    private static JsonNode parse(byte[] body, int maxDepth, int maxTopLevelItems, String pathPrefix)
            throws ApiException {
        if (body.length == 0) {
            throw ApiException.badRequest("the request body is empty; send a JSON " + (pathPrefix.isEmpty() ? "object" : "array"));
        }
        try {
            return StrictJson.parse(body, maxDepth, maxTopLevelItems);
        } catch (JsonRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    /** Runs a ledger read whose size arguments the ledger checks; its refusal becomes a 400. */
    private static <T> T sized(SizedRead<T> read) throws Exception {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    @FunctionalInterface
    private interface SizedRead<T> {
        T get() throws Exception;
    }
}
