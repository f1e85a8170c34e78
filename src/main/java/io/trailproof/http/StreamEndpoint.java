package io.trailproof.http;

import io.trailproof.config.ApiKey;
import io.trailproof.index.BadQueryException;
import io.trailproof.index.EventFilter;
import io.trailproof.index.EventMatcher;
import io.trailproof.ledger.Ledger;
import io.trailproof.stream.StreamHub;
import io.undertow.server.HttpServerExchange;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /v1/stream} (src/site/live-stream.md): checks the request on the I/O thread, every refusal a 400
 * before anything is streamed (for a WebSocket, instead of the upgrade), then hands it to the
 * {@link StreamHub}.
 */
final class StreamEndpoint {

    private static final Set<String> PARAMS = Set.of("from", "agent_id", "action_type", "action_status", "source", "q");
    private static final String LAST_EVENT_ID = "Last-Event-ID";

    private final Ledger ledger;
    private final StreamHub hub;

    StreamEndpoint(Ledger ledger, StreamHub hub) {
        this.ledger = ledger;
        this.hub = hub;
    }

    void register(Router router) {
        router.add("GET", "/v1/stream", ApiKey.Role.READ, (ex, p) -> {
            throw ApiException.badRequest("a stream request takes no body; send GET /v1/stream without one");
        }, this::start);
    }

    private CompletionStage<Router.Answer> start(HttpServerExchange ex) throws ApiException {
        if (ex.getRequestContentLength() > 0) {
            throw ApiException.badRequest("a stream request takes no body; send GET /v1/stream without one");
        }
        for (String name : ex.getQueryParameters().keySet()) {
            if (!PARAMS.contains(name) && !name.startsWith("label.")) {
                throw ApiException.badRequest("unknown parameter " + Params.shorten(name) + "; this endpoint takes "
                        + "action_status, action_type, agent_id, from, q, source and label.{key}");
            }
        }
        Params params = new Params(ex);
        EventFilter filter = SearchEndpoints.filter(params, ex);
        String q = params.optional("q");
        long size = ledger.size();
        long from = start(params, ex, size);
        EventMatcher matcher;
        try {
            matcher = EventMatcher.of(q, filter);
        } catch (BadQueryException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        return CompletableFuture.completedFuture(e -> {
            try {
                hub.open(e, matcher, from);
            } catch (StreamHub.Refused r) {
                throw new ApiException(503, r.getMessage(), Map.of("Retry-After", "1"));
            }
        });
    }

    /** The first log index to send: {@code Last-Event-ID} + 1, else {@code from}, else the current size. */
    private static long start(Params params, HttpServerExchange ex, long size) throws ApiException {
        long from = params.wholeNumber("from", 0, size);
        if (from > size) {
            throw ApiException.badRequest("parameter from is " + from + ", beyond the tree size " + size
                    + "; give a log index from 0 to " + size);
        }
        String last = ex.getRequestHeaders().getFirst(LAST_EVENT_ID);
        if (last == null) {
            return from;
        }
        long id;
        try {
            id = last.strip().matches("[0-9]+") ? Long.parseLong(last.strip()) : -1;
        } catch (NumberFormatException e) {
            id = -1;
        }
        if (id < 0) {
            throw ApiException.badRequest("header Last-Event-ID must be the whole-number id of the last event "
                    + "received, got '" + Params.shorten(last) + "'");
        }
        if (id >= size) {
            throw ApiException.badRequest("header Last-Event-ID is " + id + ", but the tree holds only " + size
                    + " events (log indexes 0 to " + (size - 1) + ")");
        }
        return id + 1;
    }
}
