package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.event.EventRejection;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.core.policy.PolicyRejection;
import io.trailproof.gate.Gate;
import io.trailproof.gate.GateRefusal;
import io.trailproof.gate.GateWrites;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.IOException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * Gates and approvals over HTTP (src/site/gates.md#the-api): {@code POST /v1/decisions},
 * {@code GET /v1/decisions/{id}} (long poll), {@code GET /v1/approvals}, {@code POST /v1/approvals/{id}}
 * and the gate policy under {@code /v1/admin/gate-policy}. Thin: the rules and the state are the
 * {@link Gate}'s; the writes and long polls hold no worker thread (they run on the I/O thread and
 * answer when their stage completes).
 */
final class GateEndpoints {

    /** The longest {@code wait} of a long poll. */
    static final Duration MAX_WAIT = Duration.ofSeconds(60);
    private static final int MAX_POLICY_DEPTH = 16;
    private static final String DECISIONS = "/v1/decisions/";
    private static final String APPROVALS = "/v1/approvals/";

    private final Gate gate;
    private final RequestBodies bodies;
    private final IdempotentRequests idempotency;

    GateEndpoints(Gate gate, RequestBodies bodies, IdempotentRequests idempotency) {
        this.gate = gate;
        this.bodies = bodies;
        this.idempotency = idempotency;
    }

    void register(Router router) {
        router.add("POST", "/v1/decisions", ApiKey.Role.INGEST, (ex, p) -> blocking(ex, decide(ex)),
                        whenLoaded(this::decide))
                .add("GET", "/v1/decisions/{id}", ApiKey.Role.INGEST, (ex, p) -> blocking(ex, decision(ex)),
                        whenLoaded(this::decision))
                .add("GET", "/v1/approvals", ApiKey.Role.APPROVE, (ex, p) -> pending(ex))
                .add("POST", "/v1/approvals/{id}", ApiKey.Role.APPROVE, (ex, p) -> blocking(ex, answer(ex)),
                        whenLoaded(this::answer))
                .add("PUT", "/v1/admin/gate-policy", ApiKey.Role.ADMIN, (ex, p) -> blocking(ex, putPolicy(ex)),
                        whenLoaded(this::putPolicy))
                .add("GET", "/v1/admin/gate-policy", ApiKey.Role.READ, (ex, p) -> activePolicy(ex));
    }

    /**
     * The I/O-thread form of a gate endpoint. Until the gate has read its state from the log after a
     * start ({@link Gate#loaded()}) it answers 503 with {@code Retry-After} at once: waiting there for
     * that first pass would hold the I/O thread, and with it the writes of every connection it serves.
     * (A request on a worker thread, the other form, waits for the pass instead.)
     */
    private Router.NonBlockingEndpoint whenLoaded(Router.NonBlockingEndpoint endpoint) {
        return ex -> gate.loaded() ? endpoint.start(ex) : CompletableFuture.failedFuture(new ApiException(503,
                "the gate is still reading its state from the log after the start (GET /health lists it under "
                        + "loading); retry in a moment", Map.of("Retry-After", "1")));
    }

    private static void blocking(HttpServerExchange ex, CompletionStage<Router.Answer> stage) throws Exception {
        try {
            stage.toCompletableFuture().get().write(ex);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause() : e.getCause();
            if (cause instanceof Exception x) {
                throw x;
            }
            throw (Error) cause;
        }
    }

    // ------------------------------------------------------------------ decisions

    private CompletionStage<Router.Answer> decide(HttpServerExchange ex) throws Exception {
        byte[] body = bodies.read(ex);
        IdempotentRequests.Start start = idempotency.begin(ex, body, record -> decisionReplay(record));
        if (start instanceof IdempotentRequests.Replayed r) {
            return CompletableFuture.completedFuture(r.answer());
        }
        DedupeTable.Claim claim = start == null ? null : ((IdempotentRequests.Claimed) start).claim();
        CompletableFuture<Gate.Decided> decided;
        try {
            decided = gate.decide(proposal(body), claim);
        } catch (Exception | Error e) {
            if (claim != null) {
                claim.release();
            }
            throw e;
        }
        return answered(decided.whenComplete((d, e) -> {
            if (claim != null) {
                claim.release();
            }
        }), d -> d.stored().replayed() ? decisionReplay(d.stored().logIndex()) : decisionCreated(d));
    }

    /** A proposal: an event's fields, {@code action_type} {@code TOOL_CALL} when absent, no {@code decision_id}. */
    private static ObjectNode proposal(byte[] body) throws ApiException {
        if (body.length == 0) {
            throw ApiException.badRequest("the request body is empty; send the proposed event as a JSON object");
        }
        ObjectNode fields;
        try {
            fields = EventValidator.validate(StrictJson.parse(body, EventLimits.MAX_NESTING_DEPTH, Integer.MAX_VALUE));
        } catch (JsonRejection | EventRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (fields.has(EventFields.DECISION_ID)) {
            throw ApiException.badRequest("a proposal has no decision_id: it asks for one; send decision_id on the "
                    + "TOOL_CALL that records the action");
        }
        if (!fields.has(EventFields.ACTION_TYPE)) {
            fields.put(EventFields.ACTION_TYPE, "TOOL_CALL");
        }
        return fields;
    }

    private Router.Answer decisionReplay(byte[] record) throws IOException {
        return decisionReplay(IdempotentRequests.singleLogIndex(record));
    }

    private Router.Answer decisionReplay(long logIndex) throws IOException {
        byte[] answer = gate.decisionAnswer(logIndex);
        String id = gate.eventId(logIndex);
        return ex -> {
            ex.getResponseHeaders().put(IdempotentRequests.REPLAYED, "true");
            ex.getResponseHeaders().put(Headers.LOCATION, DECISIONS + id);
            Responses.bytes(ex, 201, answer);
        };
    }

    /** A new decision's answer, from the event as the write returned it (nothing is read back). */
    private Router.Answer decisionCreated(Gate.Decided decided) throws IOException {
        byte[] answer = gate.decisionAnswer(decided);
        return ex -> {
            ex.getResponseHeaders().put(Headers.LOCATION, DECISIONS + decided.stored().event().id());
            Responses.bytes(ex, 201, answer);
        };
    }

    private CompletionStage<Router.Answer> decision(HttpServerExchange ex) throws Exception {
        String id = idIn(ex, DECISIONS);
        Duration wait = waitOf(new Params(ex).optional("wait"));
        return gate.awaitDecision(id, wait).thenApply(state -> {
            ObjectNode o = state.orElseThrow(() -> new CompletionException(ApiException.notFound("no decision with id "
                    + Params.shorten(id))));
            return e -> Responses.json(e, 200, o);
        });
    }

    private static Duration waitOf(String text) throws ApiException {
        if (text == null) {
            return Duration.ZERO;
        }
        try {
            Duration d = Duration.parse(text);
            if (d.isNegative() || d.compareTo(MAX_WAIT) > 0) {
                throw ApiException.badRequest("wait must be an ISO 8601 duration from PT0S to PT60S, got "
                        + Params.shorten(text));
            }
            return d;
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest("wait must be an ISO 8601 duration such as PT30S (at most PT60S), got "
                    + Params.shorten(text));
        }
    }

    private static String idIn(HttpServerExchange ex, String prefix) throws ApiException {
        String id = ex.getRelativePath().substring(prefix.length());
        if (!Ledger.wellFormedId(id)) {
            throw ApiException.badRequest("a decision id is a lowercase UUID version 7 such as "
                    + "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00, as POST /v1/decisions answers it");
        }
        return id;
    }

    // ------------------------------------------------------------------ approvals

    private void pending(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        String state = params.optional("state");
        if (state != null && !state.equals("pending")) {
            throw ApiException.badRequest("state must be pending (the only list of approvals), got "
                    + Params.shorten(state));
        }
        ArrayNode out = Responses.MAPPER.createArrayNode();
        gate.pending(params.limit()).forEach(out::add);
        Responses.json(ex, 200, out);
    }

    private CompletionStage<Router.Answer> answer(HttpServerExchange ex) throws Exception {
        String id = idIn(ex, APPROVALS);
        JsonNode body = object(bodies.read(ex), 4, "{\"approve\": true, \"comment\": \"...\"}");
        boolean approve = false;
        String comment = null;
        for (Iterator<Map.Entry<String, JsonNode>> it = body.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            switch (e.getKey()) {
                case "approve" -> {
                    if (!e.getValue().isBoolean()) {
                        throw ApiException.badRequest("approve must be true or false");
                    }
                    approve = e.getValue().booleanValue();
                }
                case "comment" -> {
                    if (!e.getValue().isNull() && (!e.getValue().isTextual()
                            || e.getValue().textValue().length() > EventLimits.STRING_MAX_LENGTH)) {
                        throw ApiException.badRequest("comment must be a string of at most "
                                + EventLimits.STRING_MAX_LENGTH + " characters");
                    }
                    comment = e.getValue().isNull() ? null : e.getValue().textValue();
                }
                default -> throw ApiException.badRequest("unknown key '" + Params.shorten(e.getKey())
                        + "'; an answer has approve (true or false) and an optional comment");
            }
        }
        if (!body.has("approve")) {
            throw ApiException.badRequest("approve is required: true to approve, false to deny");
        }
        CompletableFuture<GateWrites.Stored> stored;
        try {
            stored = gate.answer(id, approve, comment, Caller.of(ex).name());
        } catch (GateRefusal r) {
            throw r.kind() == GateRefusal.Kind.UNKNOWN ? ApiException.notFound(r.getMessage())
                    : new ApiException(409, r.getMessage());
        }
        return answered(stored, s -> {
            byte[] answer = gate.approvalAnswer(s.logIndex());
            return e -> Responses.bytes(e, 201, answer);
        });
    }

    // ------------------------------------------------------------------ the gate policy

    private CompletionStage<Router.Answer> putPolicy(HttpServerExchange ex) throws Exception {
        JsonNode document = object(bodies.read(ex), MAX_POLICY_DEPTH, "{\"policies\": [...]}");
        CompletableFuture<GateWrites.Stored> stored;
        try {
            stored = gate.putPolicy(document);
        } catch (PolicyRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        return answered(stored, s -> {
            ObjectNode o = Responses.MAPPER.createObjectNode();
            o.put("event_id", gate.eventId(s.logIndex()));
            o.set("policy", document);
            return e -> Responses.json(e, 201, o);
        });
    }

    private void activePolicy(HttpServerExchange ex) throws Exception {
        Optional<ObjectNode> active = gate.activePolicy();
        Responses.json(ex, 200, active.orElseThrow(() -> ApiException.notFound("no gate policy is active; "
                + "record one with PUT /v1/admin/gate-policy or gate.policy-file")));
    }

    // ------------------------------------------------------------------ shared

    private static JsonNode object(byte[] body, int depth, String shape) throws ApiException {
        if (body.length == 0) {
            throw ApiException.badRequest("the request body is empty; send a JSON object such as " + shape);
        }
        JsonNode node;
        try {
            node = StrictJson.parse(body, depth, Integer.MAX_VALUE);
        } catch (JsonRejection e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (!node.isObject()) {
            throw ApiException.badRequest("the body must be a JSON object such as " + shape);
        }
        return node;
    }

    @FunctionalInterface
    private interface StoredAnswer<T> {
        Router.Answer of(T stored) throws IOException;
    }

    /**
     * The answer once the write is durable; a key conflict is a 422, an event too large a 400. The
     * answer is made when it is written (on the connection's thread), not in the stage: the stage
     * completes on the log's flusher thread, whose next force would wait for it.
     */
    private static <T> CompletionStage<Router.Answer> answered(CompletableFuture<T> stored, StoredAnswer<T> answer) {
        return stored.handle((s, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                if (cause instanceof GateWrites.KeyConflict) {
                    throw new CompletionException(new ApiException(422, "this Idempotency-Key was already used with a "
                            + "different body; send the same body to get the recorded answer, or use a new key"));
                }
                if (cause instanceof IllegalArgumentException refused) {
                    throw new CompletionException(ApiException.badRequest(refused.getMessage()));
                }
                throw error instanceof CompletionException c ? c : new CompletionException(error);
            }
            return ex -> answer.of(s).write(ex);
        });
    }
}
