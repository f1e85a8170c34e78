package io.trailproof.http;

import io.trailproof.logging.LogFields;
import io.trailproof.metrics.ServiceMetrics;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * In front of every other handler: when each exchange completes, counts it in the metrics (by route
 * template, method and status, with its duration and bytes sent) and writes its access log line
 * ({@code log.access}). Installed only when one of them is on; it costs a request one completion
 * listener and, with metrics, a few lock-free counter updates.
 *
 * <p>The access line and the error log line of a 500 name the request's id ({@link RequestIds}).
 */
final class RequestTelemetry implements HttpHandler {

    /** The route template the router matched; requests that match no route are counted as {@code other}. */
    static final AttachmentKey<String> ENDPOINT = AttachmentKey.create(String.class);
    private static final Logger ACCESS = Logger.getLogger("io.trailproof.access");
    private static final Logger ERRORS = Logger.getLogger(ApiHandler.class.getName());

    private final HttpHandler next;
    /** Null when metrics.enabled is false. */
    private final ServiceMetrics metrics;
    private final boolean accessLog;
    private final Authenticator authenticator;

    RequestTelemetry(HttpHandler next, ServiceMetrics metrics, boolean accessLog, Authenticator authenticator) {
        this.next = next;
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.authenticator = authenticator;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        long started = System.nanoTime();
        ex.addExchangeCompleteListener((exchange, nextListener) -> {
            try {
                completed(exchange, System.nanoTime() - started);
            } finally {
                nextListener.proceed();
            }
        });
        next.handleRequest(ex);
    }

    private void completed(HttpServerExchange ex, long nanos) {
        String endpoint = endpoint(ex);
        int status = ex.getStatusCode();
        if (metrics != null) {
            metrics.request(endpoint, method(ex), status, nanos, ex.getResponseBytesSent());
            if (ex.getResponseHeaders().contains(IdempotentRequests.REPLAYED)) {
                metrics.idempotentReplay();
            }
        }
        if (accessLog) {
            access(ex, status, nanos);
        }
    }

    /** The standard methods as they are, any other (a client may send any token) as {@code other}: bounded labels. */
    private static String method(HttpServerExchange ex) {
        String m = ex.getRequestMethod().toString();
        return switch (m) {
            case "GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH" -> m;
            default -> "other";
        };
    }

    /** A route template, {@code console} for the console's files, or {@code other}: never a raw path. */
    private static String endpoint(HttpServerExchange ex) {
        String template = ex.getAttachment(ENDPOINT);
        if (template != null) {
            return template;
        }
        String path = ex.getRelativePath();
        return path.equals("/") || path.equals("/ui") || path.startsWith(ConsoleHandler.PREFIX) ? "console" : "other";
    }

    /**
     * One access line: method, path (without the query string, which may hold search terms about the
     * audited data), status, duration, bytes sent, who (the signed-in person or the API key's name, never
     * the key) and the request id.
     */
    private void access(HttpServerExchange ex, int status, long nanos) {
        String method = ex.getRequestMethod().toString();
        // Decoded, a path may hold control characters: a text line must not be split or forged by them.
        String path = ex.getRequestPath().replaceAll("\\p{Cntrl}", "?");
        double millis = Math.round(nanos / 1e4) / 100.0;
        long bytes = ex.getResponseBytesSent();
        Caller caller = ex.getAttachment(Caller.KEY);
        String key = status == 401 ? null : caller != null ? (Caller.ANONYMOUS.equals(caller.name()) ? null : caller.name())
                : authenticator.keyName(ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION));
        String id = ex.getAttachment(RequestIds.REQUEST_ID);
        LogFields.of("method", method, "path", path, "status", status, "duration_ms", millis, "bytes", bytes,
                        "key_name", key, "request_id", id)
                .log(ACCESS, Level.INFO, method + " " + path + " " + status + " " + millis + " ms " + bytes + " bytes"
                        + (key == null ? "" : " key " + key) + " request " + id, null);
    }

    /** Logs an endpoint's failure with the request's id (when it has one) as a field and in the message. */
    static void logError(HttpServerExchange ex, String message, Throwable failure) {
        String id = ex.getAttachment(RequestIds.REQUEST_ID);
        LogFields.of("request_id", id).log(ERRORS, Level.SEVERE, id == null ? message : message + " (request " + id + ")",
                failure);
    }
}
