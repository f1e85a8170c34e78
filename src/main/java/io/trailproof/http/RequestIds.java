package io.trailproof.http;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.HttpString;

import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * The outermost handler: every answer carries {@code X-Request-Id}, whatever metrics and the access
 * log are set to (src/site/http-api.md#headers). A request's own id is kept when it is 1 to 64
 * characters of {@code [A-Za-z0-9._-]}; otherwise the request gets one,
 * {@code <8 hex digits chosen at start>-<sequence>}. The access line and the error log line of a 500
 * name it.
 */
final class RequestIds implements HttpHandler {

    static final AttachmentKey<String> REQUEST_ID = AttachmentKey.create(String.class);
    static final HttpString HEADER = new HttpString("X-Request-Id");

    /** The longest request id taken from a client. */
    private static final int MAX_CLIENT_ID = 64;

    private final HttpHandler next;
    private final String prefix;
    private final AtomicLong sequence = new AtomicLong();

    RequestIds(HttpHandler next, RandomGenerator random) {
        this.next = next;
        this.prefix = HexFormat.of().toHexDigits(random.nextInt());
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        String id = ex.getRequestHeaders().getFirst(HEADER);
        if (id == null || !isClientId(id)) {
            id = next();
        }
        ex.putAttachment(REQUEST_ID, id);
        ex.getResponseHeaders().put(HEADER, id);
        next.handleRequest(ex);
    }

    /** A new id, for a request that brought none (and for Undertow's own refusals, which no handler sees). */
    String next() {
        return prefix + "-" + sequence.incrementAndGet();
    }

    /** Whether {@code id} is 1 to 64 characters of {@code [A-Za-z0-9._-]}: a loop, not a regex, on every request that sends one. */
    static boolean isClientId(String id) {
        int n = id.length();
        if (n == 0 || n > MAX_CLIENT_ID) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }
}
