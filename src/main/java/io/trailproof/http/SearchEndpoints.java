package io.trailproof.http;

import io.trailproof.core.event.EventValidator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.ApiKey;
import io.trailproof.core.event.EventTime;
import io.trailproof.index.BadQueryException;
import io.trailproof.index.EventFilter;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.IndexUnavailableException;
import io.trailproof.index.SearchCancelledException;
import io.trailproof.index.SearchIndex;
import io.trailproof.index.SummaryRequest;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HttpString;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;

/**
 * {@code GET /v1/events} (filtered listing), {@code GET /v1/search} (src/site/http-api.md#endpoints) and the index
 * administration endpoints. Parameters are checked here; the index answers with log positions and the
 * events are read from the log.
 */
final class SearchEndpoints {

    private static final String LABEL = "label.";
    /** The header of an answer from an index that had not caught up with the log. */
    static final String INDEX_BEHIND = "X-Index-Behind";
    static final String INDEX_CHECK = "X-Index-Check";
    private static final Set<String> LIST_PARAMS = Set.of("agent_id", "action_type", "action_status", "source", "since",
            "until", "order", "limit", "offset", "format");
    private static final Set<String> SEARCH_PARAMS = Set.of("q", "agent_id", "action_type", "action_status", "source",
            "since", "until", "sort", "limit", "offset", "format", SummaryParams.FACETS, SummaryParams.HISTOGRAM);

    private final SearchIndex index;
    private final StreamedMatches.LogPayloads log;

    SearchEndpoints(SearchIndex index, StreamedMatches.LogPayloads log) {
        this.index = index;
        this.log = log;
    }

    /**
     * Requests that may block a worker thread while waiting for the index, in the rare case that a
     * list or search comes with a request body (the non-blocking form serves every other one).
     */
    static final int MAX_BLOCKED_WAITING = 8;

    private final Semaphore blockedWaiting = new Semaphore(MAX_BLOCKED_WAITING);

    /** A checked list or search request, and how its results become the answer. */
    private record Prepared(IndexRequest request, Rendering rendering) {
    }

    @FunctionalInterface
    private interface Rendering {
        /** Builds the body (on the thread that searched) and returns what writes it. */
        Router.Answer render(SearchIndex.Results results) throws Exception;
    }

    void register(Router router) {
        // Both wait for the index without a thread: parameters are checked on the I/O thread, the
        // request is parked until the index holds every event durable when it arrived, and the
        // search runs on a worker then. Ingestion never waits behind requests waiting for the index.
        router.add("GET", "/v1/events", ApiKey.Role.READ, (ex, p) -> blocking(ex, list(ex)), ex -> nonBlocking(ex, list(ex)))
                .add("GET", "/v1/search", ApiKey.Role.READ, (ex, p) -> blocking(ex, search(ex)),
                        ex -> nonBlocking(ex, search(ex)))
                .add("GET", "/v1/admin/index", ApiKey.Role.ADMIN, (ex, p) -> status(ex))
                .add("POST", "/v1/admin/index/rebuild", ApiKey.Role.ADMIN, (ex, p) -> rebuild(ex));
    }

    private Prepared list(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        refuseUnknown(ex, LIST_PARAMS);
        EventFilter filter = filter(params, ex);
        String order = params.optional("order");
        IndexRequest.Order o;
        if (order == null || order.equals("desc")) {
            o = IndexRequest.Order.NEWEST_FIRST;
        } else if (order.equals("asc")) {
            o = IndexRequest.Order.OLDEST_FIRST;
        } else {
            throw ApiException.badRequest("parameter order must be asc or desc, got '" + Params.shorten(order) + "'");
        }
        int limit = params.limit();
        long offset = params.offset();
        StreamedMatches.Format format = StreamedMatches.format(params);
        if (format != null) {
            return new Prepared(new IndexRequest(null, filter, o, 0, StreamedMatches.MAX_ROWS, null, true),
                    results -> {
                        AccessRecording.results(ex, Math.min(results.total(), StreamedMatches.MAX_ROWS));
                        return StreamedMatches.answer(results, format, log, "events");
                    });
        }
        return new Prepared(new IndexRequest(null, filter, o, offset, limit), results -> {
            AccessRecording.results(ex, results.results().size());
            Responses.Written body = Responses.write(g -> {
                g.writeStartArray();
                for (SearchIndex.Result r : results.results()) {
                    g.writeRawValue(new RawJson(r.payload()));
                }
                g.writeEndArray();
            });
            return e -> {
                e.getResponseHeaders().put(new HttpString("X-Total-Count"), Long.toString(results.total()));
                Responses.bytes(e, 200, body);
            };
        });
    }

    private Prepared search(HttpServerExchange ex) throws Exception {
        Params params = new Params(ex);
        refuseUnknown(ex, SEARCH_PARAMS);
        String q = params.required("q");
        EventFilter filter = filter(params, ex);
        String sort = params.optional("sort");
        IndexRequest.Order o;
        if (sort == null || sort.equals("relevance")) {
            o = IndexRequest.Order.RELEVANCE;
        } else if (sort.equals("timestamp")) {
            o = IndexRequest.Order.OLDEST_FIRST;
        } else if (sort.equals("-timestamp")) {
            o = IndexRequest.Order.NEWEST_FIRST;
        } else {
            throw ApiException.badRequest("parameter sort must be relevance, timestamp (oldest first) or -timestamp "
                    + "(newest first), got '" + Params.shorten(sort) + "'");
        }
        int limit = params.limit();
        long offset = params.offset();
        StreamedMatches.Format format = StreamedMatches.format(params);
        SummaryRequest summary = SummaryParams.of(params);
        if (format != null) {
            if (!summary.isEmpty()) {
                throw ApiException.badRequest("facets and histogram are part of the JSON answer; leave them out with "
                        + "format=" + format.extension);
            }
            return new Prepared(new IndexRequest(q, filter, o, 0, StreamedMatches.MAX_ROWS, null, true),
                    results -> {
                        AccessRecording.results(ex, Math.min(results.total(), StreamedMatches.MAX_ROWS));
                        return StreamedMatches.answer(results, format, log, "search");
                    });
        }
        return new Prepared(new IndexRequest(q, filter, o, offset, limit, summary, false), results -> {
            AccessRecording.results(ex, results.results().size());
            Responses.Written body = Responses.write(g -> {
                g.writeStartObject();
                g.writeStringField("query", q);
                g.writeNumberField("total", results.total());
                g.writeNumberField("limit", limit);
                g.writeNumberField("offset", offset);
                g.writeArrayFieldStart("results");
                for (SearchIndex.Result r : results.results()) {
                    ObjectNode extra = Responses.MAPPER.createObjectNode();
                    extra.put("score", Float.isNaN(r.score()) ? 0f : r.score());
                    ObjectNode hl = extra.putObject("highlights");
                    r.highlights().forEach((field, fragments) -> fragments.forEach(hl.putArray(field)::add));
                    String event = new String(r.payload(), StandardCharsets.UTF_8);
                    String extras = Responses.MAPPER.writeValueAsString(extra);
                    // The stored event exactly as in the log, with the two result fields appended.
                    g.writeRawValue(event.substring(0, event.lastIndexOf('}')) + "," + extras.substring(1));
                }
                g.writeEndArray();
                SummaryParams.write(g, summary, results.summary());
                g.writeEndObject();
            });
            return e -> Responses.bytes(e, 200, body);
        });
    }

    /**
     * On the I/O thread: parks the request until the index is ready, searches on a worker thread
     * and renders there; the answer is written back on the I/O thread.
     */
    private CompletionStage<Router.Answer> nonBlocking(HttpServerExchange ex, Prepared prepared) {
        CompletableFuture<Router.Answer> answer = new CompletableFuture<>();
        IndexRequest request = prepared.request().cancelledWhen(new ClientWatch(ex));
        index.findAsync(request, ex.getConnection().getWorker()).whenComplete((results, error) -> {
            Throwable failure = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            if (failure instanceof SearchCancelledException) {
                answer.complete(ClientWatch::closeConnection); // nobody is there to read an answer
                return;
            }
            if (error != null) {
                answer.completeExceptionally(refusal(failure));
                return;
            }
            try {
                answer.complete(withBehind(prepared.rendering().render(results), results));
            } catch (Exception | Error e) {
                answer.completeExceptionally(e);
            }
        });
        return answer;
    }

    /** On a worker thread (a request that came with a body): waits for the index, a few such requests at a time. */
    private void blocking(HttpServerExchange ex, Prepared prepared) throws Exception {
        if (!blockedWaiting.tryAcquire()) {
            throw new ApiException(503, MAX_BLOCKED_WAITING + " list or search requests with a request body are "
                    + "already being served; send them without a body", Map.of("Retry-After", "1"));
        }
        SearchIndex.Results results;
        try {
            // Not watched for a client that leaves: the unread body comes before anything that would tell.
            results = index.findOrPartial(prepared.request());
        } catch (BadQueryException | IndexUnavailableException e) {
            throw (ApiException) refusal(e);
        } finally {
            blockedWaiting.release();
        }
        withBehind(prepared.rendering().render(results), results).write(ex);
    }

    /**
     * An answer from an index still catching up (src/site/search.md#read-after-write) says so:
     * {@value #INDEX_BEHIND} is how many events durable at the request's start it may not hold. An
     * answer from an index whose files' checksums are still being verified after the start
     * (src/site/search.md#how-the-index-follows-the-log) says so too: {@value #INDEX_CHECK} {@code pending}.
     */
    private static Router.Answer withBehind(Router.Answer answer, SearchIndex.Results results) {
        if (results.behind() <= 0 && !results.unchecked()) {
            return answer;
        }
        return e -> {
            if (results.behind() > 0) {
                e.getResponseHeaders().put(new HttpString(INDEX_BEHIND), Long.toString(results.behind()));
            }
            if (results.unchecked()) {
                e.getResponseHeaders().put(new HttpString(INDEX_CHECK), "pending");
            }
            answer.write(e);
        };
    }

    /** The answer to a failure of the index: 400 for a bad query, 503 when the index cannot answer now. */
    private static Throwable refusal(Throwable failure) {
        if (failure instanceof BadQueryException e) {
            return ApiException.badRequest(e.getMessage());
        }
        if (failure instanceof IndexUnavailableException e) {
            return new ApiException(503, e.getMessage(), Map.of("Retry-After", "10"));
        }
        return failure;
    }

    static EventFilter filter(Params params, HttpServerExchange ex) throws ApiException {
        Map<String, String> labels = new TreeMap<>();
        for (String name : ex.getQueryParameters().keySet()) {
            if (name.startsWith(LABEL)) {
                String key = name.substring(LABEL.length());
                if (key.isEmpty()) {
                    throw ApiException.badRequest("a label filter needs a key: label.{key}=value");
                }
                if (!EventValidator.isLabelKey(key)) {
                    throw ApiException.badRequest("label key '" + Params.shorten(key) + "' cannot exist: a label key is "
                            + "1..128 characters of A-Z a-z 0-9 _ . : -");
                }
                labels.put(key, params.optional(name));
            }
        }
        return new EventFilter(nonEmpty(params, "agent_id"), nonEmpty(params, "action_type"),
                nonEmpty(params, "action_status"), nonEmpty(params, "source"), instant(params, "since"),
                instant(params, "until"), labels);
    }

    private static String nonEmpty(Params params, String name) throws ApiException {
        String v = params.optional(name);
        if (v != null && v.isEmpty()) {
            throw ApiException.badRequest("parameter " + name + " is empty; leave it out to match every value");
        }
        return v;
    }

    /** A date-time with an offset, a naive one (UTC), or a date (its start, UTC). */
    private static Instant instant(Params params, String name) throws ApiException {
        String v = params.optional(name);
        if (v == null) {
            return null;
        }
        try {
            if (v.length() == 10) {
                return LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant();
            }
            return EventTime.parseTimestamp(v);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest("parameter " + name + " must be an ISO 8601 date-time such as "
                    + "2026-01-31T10:00:00Z (no offset means UTC) or a date such as 2026-01-31, got '"
                    + Params.shorten(v) + "'");
        }
    }

    private static void refuseUnknown(HttpServerExchange ex, Set<String> known) throws ApiException {
        for (String name : ex.getQueryParameters().keySet()) {
            if (!known.contains(name) && !name.startsWith(LABEL)) {
                throw ApiException.badRequest("unknown parameter " + Params.shorten(name) + "; this endpoint takes "
                        + String.join(", ", new TreeSet<>(known)) + " and label.{key}");
            }
        }
    }

    private void status(HttpServerExchange ex) throws Exception {
        SearchIndex.Status s = index.status();
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("state", s.rebuild() != null && s.rebuild().state().equals("running") ? "rebuilding"
                : s.upToDate() ? "ready" : "catching_up");
        o.put("indexed_events", s.indexed());
        o.put("log_size", s.logSize());
        o.put("generation", s.generation());
        if (s.rebuild() == null) {
            o.putNull("rebuild");
        } else {
            o.set("rebuild", rebuildJson(s.rebuild()));
        }
        if (s.lastFailure() == null) {
            o.putNull("last_failure");
        } else {
            o.putObject("last_failure").put("at", s.lastFailure().at().toString()).put("error", s.lastFailure().error())
                    .put("action", s.lastFailure().action());
        }
        Responses.json(ex, 200, o);
    }

    private void rebuild(HttpServerExchange ex) throws Exception {
        SearchIndex.Rebuild r = index.startRebuild();
        Responses.json(ex, 202, rebuildJson(r));
    }

    private static ObjectNode rebuildJson(SearchIndex.Rebuild r) {
        ObjectNode o = Responses.MAPPER.createObjectNode();
        o.put("state", r.state());
        o.put("started_at", r.startedAt().toString());
        o.put("finished_at", r.finishedAt() == null ? null : r.finishedAt().toString());
        o.put("done", r.done());
        o.put("total", r.total());
        o.put("error", r.error());
        return o;
    }
}
