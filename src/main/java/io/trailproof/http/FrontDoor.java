package io.trailproof.http;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderValues;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import io.undertow.util.Protocols;
import org.xnio.IoUtils;
import org.xnio.XnioExecutor;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What every request passes before anything routes it, the console's files included
 * (src/site/security.md#the-front-door), in this order:
 * <ol>
 * <li>Framing: a {@code Content-Length} that is not one decimal number of at most 18 digits, a
 *     {@code Transfer-Encoding} other than plain {@code chunked}, or both headers at once, is refused
 *     (400, or 501 for a coding this service does not decode) and the connection closed: a body whose
 *     end is unclear is never read as one.</li>
 * <li>{@code Host}: only the service's own names ({@link HostNames}); 421 otherwise, 400 when missing
 *     from an HTTP/1.1 request or malformed.</li>
 * <li>{@code Origin}: a state-changing request (any method but GET and HEAD) or a WebSocket upgrade
 *     that carries an {@code Origin} other than the request's own is a 403. Requests without one (every
 *     client that is not a browser) pass.</li>
 * <li>The body time-out: a request with a body must have sent all of it within
 *     {@code server.body-timeout-ms} of its head, whatever path it went to and whether anything reads
 *     it (an answer sent early leaves the rest to be read before the next request); past it the
 *     connection is closed.</li>
 * </ol>
 * Every answer starts with {@code Cache-Control: no-store} (what carries trail data must not stay in a
 * browser's or a proxy's cache); answers that hold none say otherwise (console files, tiles).
 */
final class FrontDoor implements HttpHandler {

    private static final System.Logger LOG = System.getLogger(FrontDoor.class.getName());

    /** Longest {@code Content-Length} taken: 18 digits always fit a long. */
    private static final int MAX_LENGTH_DIGITS = 18;

    static final String NO_STORE = "no-store";

    private final HostNames hosts;
    private final long bodyTimeoutMillis;
    /** Null in tests that serve without the connection limits. */
    private final ConnectionLimits connections;
    private final HttpHandler next;

    FrontDoor(HostNames hosts, long bodyTimeoutMillis, ConnectionLimits connections, HttpHandler next) {
        this.hosts = hosts;
        this.bodyTimeoutMillis = bodyTimeoutMillis;
        this.connections = connections;
        this.next = next;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        if (connections != null) {
            connections.requestStarted(ex);
        }
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, NO_STORE);
        ApiException badFraming = framing(ex);
        if (badFraming != null) {
            refuseAndClose(ex, badFraming);
            return;
        }
        ApiException refused = hostOrOrigin(ex);
        if (refused != null) {
            Responses.problem(ex, refused);
            return;
        }
        guardBody(ex);
        next.handleRequest(ex);
    }

    /** The refusal of a request whose body cannot be delimited safely, or null. */
    static ApiException framing(HttpServerExchange ex) {
        HeaderValues lengths = ex.getRequestHeaders().get(Headers.CONTENT_LENGTH);
        HeaderValues codings = ex.getRequestHeaders().get(Headers.TRANSFER_ENCODING);
        if (lengths != null) {
            String first = null;
            for (String v : lengths) {
                String t = v.trim();
                if (t.isEmpty() || t.length() > MAX_LENGTH_DIGITS || !allDigits(t)) {
                    return new ApiException(400, "the Content-Length header must be one decimal number of at most "
                            + MAX_LENGTH_DIGITS + " digits; got " + Params.shorten(v));
                }
                if (first != null && !first.equals(t)) {
                    return new ApiException(400, "the request has more than one Content-Length");
                }
                first = t;
            }
        }
        if (codings != null) {
            if (codings.size() != 1 || !codings.getFirst().trim().equalsIgnoreCase("chunked")) {
                return new ApiException(501, "the only Transfer-Encoding this service reads is chunked; got "
                        + Params.shorten(String.join(", ", codings)));
            }
            if (lengths != null) {
                return new ApiException(400, "the request has both Content-Length and Transfer-Encoding; send one");
            }
        }
        return null;
    }

    private static boolean allDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private ApiException hostOrOrigin(HttpServerExchange ex) {
        HeaderValues host = ex.getRequestHeaders().get(Headers.HOST);
        if (host == null || host.isEmpty()) {
            if (ex.getProtocol().equals(Protocols.HTTP_1_1)) {
                return new ApiException(400, "an HTTP/1.1 request needs a Host header");
            }
        } else {
            if (host.size() > 1) {
                return new ApiException(400, "the request has more than one Host header");
            }
            HostNames.Refusal r = hosts.check(host.getFirst());
            if (r != null) {
                return new ApiException(r.status(), r.message());
            }
        }
        String origin = ex.getRequestHeaders().getFirst(Headers.ORIGIN);
        if (origin != null && changesStateOrUpgrades(ex) && !HostNames.sameOrigin(origin, ex.getRequestHeaders().getFirst(Headers.HOST))) {
            return new ApiException(403, "requests from another origin (" + Params.shorten(origin)
                    + ") may not change anything or open a stream here; use the service's own console or an API client");
        }
        return null;
    }

    private static boolean changesStateOrUpgrades(HttpServerExchange ex) {
        return !ex.getRequestMethod().equals(Methods.GET) && !ex.getRequestMethod().equals(Methods.HEAD)
                || ex.getRequestHeaders().contains(Headers.UPGRADE);
    }

    /**
     * Answers and closes: the framing of the rest is unknown, so nothing more is read and the
     * connection is not used again.
     */
    private static void refuseAndClose(HttpServerExchange ex, ApiException e) throws Exception {
        byte[] body = Responses.MAPPER.writeValueAsBytes(Responses.MAPPER.createObjectNode().put("error", e.getMessage()));
        ex.setPersistent(false);
        ex.setStatusCode(e.status());
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.getResponseHeaders().put(Headers.CONNECTION, "close");
        ex.setResponseContentLength(body.length);
        ex.addExchangeCompleteListener((done, nextListener) -> {
            IoUtils.safeClose(done.getConnection());
            nextListener.proceed();
        });
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }

    /**
     * Closes the connection when the request's body has not fully arrived within the body time-out.
     * The timer goes with the exchange once its body has ended. A request that declares no body (no
     * {@code Transfer-Encoding}, no {@code Content-Length} or a length of 0: its framing was checked
     * before) has nothing to wait for and gets no timer: Undertow does not mark such a request
     * complete before the handlers run, and a timer for every {@code GET} was most of the front
     * door's own cost.
     */
    private void guardBody(HttpServerExchange ex) {
        if (ex.isRequestComplete() || !declaresBody(ex)) {
            return;
        }
        XnioExecutor.Key deadline = ex.getIoThread().executeAfter(() -> {
            if (!ex.isRequestComplete()) {
                LOG.log(System.Logger.Level.INFO, "closing a connection from " + ex.getSourceAddress()
                        + ": its request body did not arrive within " + bodyTimeoutMillis + " ms");
                IoUtils.safeClose(ex.getConnection());
            }
        }, bodyTimeoutMillis, TimeUnit.MILLISECONDS);
        ex.addExchangeCompleteListener((done, nextListener) -> {
            if (done.isRequestComplete()) {
                deadline.remove();
            }
            nextListener.proceed();
        });
    }

    /** Whether the request's framing (checked by {@link #framing}) announces a body of at least one byte. */
    private static boolean declaresBody(HttpServerExchange ex) {
        if (ex.getRequestHeaders().contains(Headers.TRANSFER_ENCODING)) {
            return true;
        }
        String length = ex.getRequestHeaders().getFirst(Headers.CONTENT_LENGTH);
        if (length == null) {
            return false;
        }
        String digits = length.trim();
        for (int i = 0; i < digits.length(); i++) {
            if (digits.charAt(i) != '0') {
                return true;
            }
        }
        return false;
    }

    /** The media type of a {@code Content-Type}, lower case, without parameters; null for null. */
    static String mediaType(String contentType) {
        if (contentType == null) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }
}
