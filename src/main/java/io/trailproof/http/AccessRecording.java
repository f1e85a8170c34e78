package io.trailproof.http;

import io.trailproof.access.AccessTrail;
import io.trailproof.config.ApiKey;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;

import java.util.Set;

/**
 * Records each admitted request that reads or acts on trail content in the {@link AccessTrail}
 * once its answer is complete (src/site/sign-in.md#the-trail-of-who-looked): who (the caller's
 * name), the route, method, path, query string, status and how many results the answer held.
 *
 * <p>Not recorded: open routes ({@code /health}, public checkpoints), the routes agents write
 * through (role {@code ingest}), {@code /metrics} and the OpenAPI document (no trail content), the
 * console's files (they never reach the API), and requests refused before the caller was known
 * (401, unknown paths without a key), which name nobody.
 */
final class AccessRecording implements HttpHandler {

    /** How many events or items an answer held, set by the endpoints that count them. */
    private static final AttachmentKey<Long> RESULTS = AttachmentKey.create(Long.class);
    /** The admitted route's role, set by {@link ApiHandler}. */
    static final AttachmentKey<ApiKey.Role> ROLE = AttachmentKey.create(ApiKey.Role.class);

    /** Routes that carry no trail content. */
    private static final Set<String> UNRECORDED = Set.of("/metrics", OpenApiEndpoint.PATH);

    private final HttpHandler next;
    private final AccessTrail trail;

    AccessRecording(HttpHandler next, AccessTrail trail) {
        this.next = next;
        this.trail = trail;
    }

    /** Notes how many results the answer to {@code ex} holds (before its answer is written). */
    static void results(HttpServerExchange ex, long count) {
        ex.putAttachment(RESULTS, count);
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        ex.addExchangeCompleteListener((exchange, nextListener) -> {
            try {
                completed(exchange);
            } finally {
                nextListener.proceed();
            }
        });
        next.handleRequest(ex);
    }

    private void completed(HttpServerExchange ex) {
        Caller caller = ex.getAttachment(Caller.KEY);
        ApiKey.Role role = ex.getAttachment(ROLE);
        String template = ex.getAttachment(RequestTelemetry.ENDPOINT);
        if (caller == null || role == null || role == ApiKey.Role.INGEST || template == null
                || UNRECORDED.contains(template)) {
            return;
        }
        Long results = ex.getAttachment(RESULTS);
        String method = ex.getRequestMethod().toString();
        String query = ex.getQueryString();
        trail.record(new AccessTrail.Read(method + " " + template, caller.name(), method, ex.getRequestPath(),
                query == null ? "" : query, ex.getStatusCode(), results == null ? -1 : results));
    }
}
