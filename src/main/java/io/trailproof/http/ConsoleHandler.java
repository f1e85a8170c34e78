package io.trailproof.http;

import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Serves the investigator console (src/site/console.md) in front of the API: {@code /} and {@code /ui}
 * redirect to {@code /ui/}, {@code /ui/} is {@code index.html}, {@code /ui/<file>} a packaged file;
 * every other path goes on to the API. Console files are public (they hold no data; the API calls
 * the console makes need a key), so this runs before authentication. It sits in front of
 * {@link Draining}: its answers are written from memory on the I/O thread, so a stop has nothing
 * of it to wait for.
 *
 * <p>Every answer under these paths, errors and redirects included, carries the console's security
 * headers: a Content-Security-Policy that allows scripts, styles and connections only from this
 * origin and nothing inline, {@code nosniff}, {@code no-referrer} and no framing. Files are
 * answered from memory on the I/O thread ({@link ConsoleFiles}); {@code Cache-Control: no-cache}
 * with an ETag, so that a browser revalidates and never runs a stale module after an upgrade.
 */
final class ConsoleHandler implements HttpHandler {

    static final String PREFIX = "/ui/";

    /**
     * No inline script or style, no other origin, no plugins, no base-URL rewriting, no framing;
     * {@code img-src data:} only for small inline icons in the style sheet.
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'";

    private static final Map<HttpString, String> SECURITY_HEADERS = Map.of(
            new HttpString("Content-Security-Policy"), CONTENT_SECURITY_POLICY,
            new HttpString("X-Content-Type-Options"), "nosniff",
            new HttpString("Referrer-Policy"), "no-referrer",
            new HttpString("X-Frame-Options"), "DENY",
            new HttpString("Cross-Origin-Opener-Policy"), "same-origin");

    private final ConsoleFiles files;
    private final HttpHandler api;

    ConsoleHandler(ConsoleFiles files, HttpHandler api) {
        this.files = files;
        this.api = api;
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        String path = ex.getRelativePath();
        if (!path.equals("/") && !path.equals("/ui") && !path.startsWith(PREFIX)) {
            api.handleRequest(ex);
            return;
        }
        HeaderMap headers = ex.getResponseHeaders();
        securityHeaders(headers);
        boolean head = ex.getRequestMethod().equals(Methods.HEAD);
        if (!head && !ex.getRequestMethod().equals(Methods.GET)) {
            headers.put(Headers.ALLOW, "GET, HEAD");
            error(ex, 405, "method " + ex.getRequestMethod() + " is not allowed here; use GET or HEAD");
            return;
        }
        if (!path.startsWith(PREFIX)) {
            ex.setStatusCode(302);
            headers.put(Headers.LOCATION, PREFIX);
            ex.endExchange();
            return;
        }
        String name = path.substring(PREFIX.length());
        ConsoleFiles.File file = files.get(name.isEmpty() ? "index.html" : name);
        if (file == null) {
            error(ex, 404, "no such console file: " + Params.shorten(path));
            return;
        }
        headers.put(Headers.CACHE_CONTROL, "no-cache");
        headers.put(Headers.ETAG, file.etag());
        headers.put(Headers.CONTENT_TYPE, file.contentType());
        if (file.etag().equals(ex.getRequestHeaders().getFirst(Headers.IF_NONE_MATCH))) {
            ex.setStatusCode(304);
            ex.endExchange();
            return;
        }
        ex.setStatusCode(200);
        ex.setResponseContentLength(file.bytes().length);
        if (head) {
            ex.endExchange();
        } else {
            ex.getResponseSender().send(ByteBuffer.wrap(file.bytes()));
        }
    }

    /** Sets the console's security headers (also on the sign-in pages). */
    static void securityHeaders(HeaderMap headers) {
        SECURITY_HEADERS.forEach(headers::put);
    }

    /** The API's error shape ({@code {"error"}}, src/site/http-api.md#conventions), with the security headers already set. */
    private static void error(HttpServerExchange ex, int status, String message) {
        byte[] body = Responses.MAPPER.createObjectNode().put("error", message).toString()
                .getBytes(StandardCharsets.UTF_8);
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.setResponseContentLength(body.length);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }
}
