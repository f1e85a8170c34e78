package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import org.xnio.IoUtils;
import org.xnio.XnioExecutor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Request bodies: received in full before any worker thread is involved, bounded in size and time,
 * then handed to the endpoint. JSON only (415 otherwise).
 *
 * <p>{@link #receive} runs on the connection's I/O thread and reads without blocking, so a client
 * that sends its body slowly holds a connection, never a worker. A declared length over the limit
 * is refused before a byte of the body is read; a chunked body is counted as it arrives and refused
 * the moment it passes the limit, so nothing beyond the limit is
 * ever held (the size is counted here, not by Undertow's entity-size option, which would drop a
 * chunked request's connection without an answer). A body that has not fully arrived within the body timeout loses its connection.
 */
final class RequestBodies {

    private static final System.Logger LOG = System.getLogger(RequestBodies.class.getName());
    private static final AttachmentKey<byte[]> BODY = AttachmentKey.create(byte[].class);

    /** How long the rest of a refused body is read and dropped before the connection closes. */
    private static final long LINGER_MILLIS = 2000;

    private final long maxBodyBytes;
    private final long bodyTimeoutMillis;

    RequestBodies(long maxBodyBytes, long bodyTimeoutMillis) {
        this.maxBodyBytes = maxBodyBytes;
        this.bodyTimeoutMillis = bodyTimeoutMillis;
    }

    /**
     * On the I/O thread: receives the whole body, then runs {@code then}. A body over the limit goes
     * to {@code refuse} as a 413; a body that stalls past the timeout, or a client that goes away,
     * ends with the connection closed and neither callback run.
     */
    void receive(HttpServerExchange ex, Runnable then, Consumer<ApiException> refuse) {
        long declared = ex.getRequestContentLength();
        if (declared > maxBodyBytes) {
            refuse.accept(tooLarge());
            return;
        }
        // Counted here, not by Undertow's MAX_ENTITY_SIZE: that check drops a chunked request's
        // connection without an answer, where this one answers 413 first.
        // A declared length (already within the limit) is received into an array of that size:
        // no copies as it grows and none at the end. A chunked body grows as it arrives.
        Body body = declared >= 0 ? new Body((int) declared) : new Body(64 * 1024);
        XnioExecutor.Key deadline = ex.getIoThread().executeAfter(() -> {
            LOG.log(System.Logger.Level.INFO, "closing a connection from " + ex.getSourceAddress()
                    + ": its request body did not arrive within " + bodyTimeoutMillis + " ms");
            abandon(ex);
        }, bodyTimeoutMillis, TimeUnit.MILLISECONDS);
        boolean[] refused = {false};
        ex.getRequestReceiver().receivePartialBytes((e, part, last) -> {
            if (refused[0]) {
                return; // the rest of a refused body is read and dropped until the connection closes
            }
            if (body.size() + (long) part.length > maxBodyBytes) {
                refused[0] = true;
                deadline.remove();
                // Answer at once, go on reading (and dropping) for a moment so that the client can
                // read the answer before the close, then close: a close with unread data would
                // reset the connection and lose the answer.
                e.getIoThread().executeAfter(() -> abandon(e), LINGER_MILLIS, TimeUnit.MILLISECONDS);
                e.setPersistent(false);
                refuse.accept(tooLarge());
                return;
            }
            body.write(part, 0, part.length);
            if (last) {
                deadline.remove();
                e.putAttachment(BODY, body.bytes());
                then.run();
            }
        }, (e, failure) -> {
            deadline.remove();
            abandon(e);
        });
    }

    /** A body as it arrives; {@link #bytes} hands over the array itself when it is exactly full. */
    private static final class Body extends ByteArrayOutputStream {
        Body(int size) {
            super(size);
        }

        byte[] bytes() {
            return count == buf.length ? buf : toByteArray();
        }
    }

    /** The client went away or stalled: drop the connection and end the exchange so a stop need not wait for it. */
    private static void abandon(HttpServerExchange ex) {
        IoUtils.safeClose(ex.getConnection());
        ex.endExchange();
    }

    /** Size of the received body. */
    int received(HttpServerExchange ex) {
        byte[] body = ex.getAttachment(BODY);
        return body == null ? 0 : body.length;
    }

    /** The received body of a JSON request. */
    byte[] read(HttpServerExchange ex) throws ApiException, IOException {
        String type = ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE);
        if (type == null || !isJson(type)) {
            throw new ApiException(415, "the body must be JSON: send Content-Type: application/json");
        }
        byte[] body = ex.getAttachment(BODY);
        if (body == null) {
            throw new IllegalStateException("the body is read by receive() before the endpoint runs");
        }
        return body;
    }

    private ApiException tooLarge() {
        return new ApiException(413, "the request body is larger than the limit of " + maxBodyBytes + " bytes");
    }

    private static boolean isJson(String contentType) {
        String t = contentType.toLowerCase(Locale.ROOT).trim();
        int semicolon = t.indexOf(';');
        String media = (semicolon < 0 ? t : t.substring(0, semicolon)).trim();
        if (!media.equals("application/json")) {
            return false;
        }
        if (semicolon >= 0) {
            String params = t.substring(semicolon + 1).replace(" ", "");
            return !params.startsWith("charset=") || params.startsWith("charset=utf-8");
        }
        return true;
    }
}
