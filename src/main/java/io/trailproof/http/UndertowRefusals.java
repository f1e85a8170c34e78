package io.trailproof.http;

import io.undertow.server.handlers.HostHeaderHandler;
import org.xnio.StreamConnection;
import org.xnio.conduits.AbstractStreamSinkConduit;
import org.xnio.conduits.StreamSinkConduit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Gives Undertow's own refusals a message (src/site/security.md#framing).
 *
 * <p>Two kinds of request never reach a handler of the service: a head the HTTP parser cannot parse (a
 * malformed request line or header, a head over its size limit), for which the parser writes a fixed
 * {@code 400 Bad Request} with an empty body straight to the connection; and a {@code Host} header
 * that Undertow's own check (always in front of the service's handlers) finds missing, repeated or
 * malformed, for which it answers a 400 with an empty body and the reason in the status line. Both close
 * the connection. This conduit sits at the bottom of every accepted connection's output, below
 * everything Undertow writes, and replaces exactly those answers, when they are written in one buffer
 * of their own (always, but behind pipelined answers still buffered), with a 400 that says what was
 * wrong as every other refusal of the service does: a JSON {@code error}, {@code Cache-Control:
 * no-store}, an {@code X-Request-Id}, {@code Connection: close}.
 *
 * <p>Every other write passes unchanged. What a write costs here: a length comparison, then, for a
 * buffer short enough to be one of these answers, three bytes of its status.
 */
final class UndertowRefusals extends AbstractStreamSinkConduit<StreamSinkConduit> {

    /** What Undertow's {@code HttpReadListener} writes when the parser fails. */
    static final byte[] PARSERS_ANSWER = ascii("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");

    static final String PARSERS_MESSAGE = "the request head is not well-formed HTTP/1.1: a malformed request line"
            + " (a space or control character in the target), a malformed header (no colon, a control character)"
            + " or a head over 1 MiB; the connection is closed";

    /** The reason phrases of Undertow's Host check, each with what the service says instead. */
    static final Map<String, String> HOST_MESSAGES = Map.of(
            HostHeaderHandler.STATUS_NO_HOST_HEADER, "an HTTP/1.1 request needs a Host header",
            HostHeaderHandler.STATUS_TOO_MANY_HOST_HEADERS, "the request has more than one Host header",
            HostHeaderHandler.STATUS_MALFORMED_PORT, "the Host header is malformed: its port is not a number",
            HostHeaderHandler.STATUS_MALFORMED_IP_LITERAL, "the Host header is malformed: a bracketed address that is not an IPv6 address",
            HostHeaderHandler.STATUS_MALFORMED_IP_LITERAL_BAD_CHARS, "the Host header is malformed: a character a host name cannot have",
            HostHeaderHandler.STATUS_HOST_NO_MATCH, "the request's absolute URI names a host other than its Host header");

    private static final byte[] STATUS_400 = ascii("HTTP/1.1 400 ");
    /** Longer than any answer replaced here (a Host refusal's head is about 110 bytes). */
    private static final int LONGEST_REPLACED = 256;

    private final Supplier<String> requestIds;
    /** The answer being written in place of Undertow's, until all of it is written; null before. */
    private ByteBuffer replacement;

    UndertowRefusals(StreamSinkConduit next, Supplier<String> requestIds) {
        super(next);
        this.requestIds = requestIds;
    }

    /** Puts the conduit under everything Undertow will write to {@code connection}: call before Undertow sees it. */
    static void install(StreamConnection connection, Supplier<String> requestIds) {
        connection.getSinkChannel().setConduit(new UndertowRefusals(connection.getSinkChannel().getConduit(), requestIds));
    }

    /**
     * Undertow writes such an answer with one buffer per call until it is written; the replacement
     * goes out over as many calls as it needs, each reporting nothing of the original written until
     * the last, which reports all of it.
     */
    @Override
    public int write(ByteBuffer src) throws IOException {
        if (replacement == null) {
            String message = src.remaining() <= LONGEST_REPLACED ? messageFor(src) : null;
            if (message == null) {
                return next.write(src);
            }
            replacement = ByteBuffer.wrap(answer(message, requestIds.get()));
        }
        while (replacement.hasRemaining()) {
            if (next.write(replacement) == 0) {
                return 0;
            }
        }
        int n = src.remaining();
        src.position(src.limit());
        return n;
    }

    /**
     * The service's message for {@code src} when it is all of one of Undertow's refusals (a 400 whose
     * head ends the buffer, with no body), else null. Leaves {@code src} as it was.
     */
    static String messageFor(ByteBuffer src) {
        int p = src.position();
        int n = src.remaining();
        if (n < STATUS_400.length + 4 || src.get(p + 9) != '4' || src.get(p + 10) != '0' || src.get(p + 11) != '0') {
            return null;
        }
        byte[] bytes = new byte[n];
        src.get(p, bytes);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        if (!text.startsWith("HTTP/1.1 400 ") || text.indexOf("\r\n\r\n") != n - 4
                || !text.toLowerCase(Locale.ROOT).contains("\r\ncontent-length: 0\r\n")) {
            return null;
        }
        if (src.equals(ByteBuffer.wrap(PARSERS_ANSWER))) {
            return PARSERS_MESSAGE;
        }
        String reason = text.substring(STATUS_400.length, text.indexOf("\r\n"));
        return HOST_MESSAGES.get(reason);
    }

    /** The 400 written instead of Undertow's. */
    static byte[] answer(String message, String requestId) {
        String body = "{\"error\":\"" + message.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
        return ascii("HTTP/1.1 400 Bad Request\r\n"
                + "Content-Type: application/json\r\n"
                + "Cache-Control: " + FrontDoor.NO_STORE + "\r\n"
                + RequestIds.HEADER + ": " + requestId + "\r\n"
                + "Connection: close\r\n"
                + "Content-Length: " + body.length() + "\r\n"
                + "\r\n" + body);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
