package io.trailproof.http;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.HttpString;

import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

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

    private static final Pattern CLIENT_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

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
        if (id == null || !CLIENT_ID.matcher(id).matches()) {
            id = prefix + "-" + sequence.incrementAndGet();
        }
        ex.putAttachment(REQUEST_ID, id);
        ex.getResponseHeaders().put(HEADER, id);
        next.handleRequest(ex);
    }
}
