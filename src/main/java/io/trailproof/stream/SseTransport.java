package io.trailproof.stream;

import io.undertow.io.IoCallback;
import io.undertow.io.Sender;
import io.undertow.server.AbstractServerConnection;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import org.xnio.IoUtils;
import org.xnio.XnioIoThread;
import org.xnio.channels.StreamSourceChannel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Server-Sent Events over one HTTP response (src/site/live-stream.md): each event is
 * {@code id: <log_index>\nevent: event\ndata: <json>\n\n}; a {@code : keep-alive} comment goes out
 * after a heartbeat without a write; an overflow ends with
 * {@code event: overflow\ndata: {"resume_from": N}\n\n}; a stop ends the response.
 *
 * <p>Writes never block: at most one write is in flight, on the connection's I/O thread, and the
 * next batch is taken from the buffer when it completes. A client that stops reading leaves the
 * events in its buffer, where the dispatcher's overflow rule finds them.
 *
 * <p>The connection is also read while the stream runs, though the client has nothing to send: a
 * client that closes it (end of input) or resets it (a failed read) is seen at once, and its place
 * among {@code stream.max-subscribers} is freed, even when no write is due to fail for another heartbeat
 * (src/site/live-stream.md#subscribers-and-limits). Bytes a client does send are dropped, up to
 * {@link #MAX_IGNORED_BYTES}; past that the connection is closed.
 */
final class SseTransport extends PumpedTransport {

    /** Events written per write; large enough to fill a socket buffer, small enough to stay fair. */
    private static final int BATCH = 256;
    /** What a client may send on a stream (it has no reason to send anything) before the connection is closed. */
    private static final long MAX_IGNORED_BYTES = 64 * 1024;
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final HttpServerExchange ex;
    private final Sender sender;
    private final long heartbeatNanos;

    // I/O thread only.
    private long lastWriteNanos;
    private long ignoredBytes;

    private SseTransport(HttpServerExchange ex, Subscription subscription, Duration heartbeat) {
        super(subscription, BATCH);
        this.ex = ex;
        this.heartbeatNanos = heartbeat.toNanos();
        ex.setStatusCode(200);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/event-stream");
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-store");
        ex.getResponseHeaders().put(new HttpString("X-Accel-Buffering"), "no");
        this.sender = ex.getResponseSender();
    }

    /** Starts the stream on {@code ex} (on its I/O thread): headers and a first comment go out at once. */
    static void start(HttpServerExchange ex, Subscription subscription, Duration heartbeat) {
        SseTransport t = new SseTransport(ex, subscription, heartbeat);
        t.writeTimeout = WriteTimeouts.suspend(ex.getConnection());
        ex.addExchangeCompleteListener((e, next) -> {
            subscription.release();
            next.proceed();
        });
        ex.getConnection().addCloseListener(c -> subscription.release());
        subscription.attach(t);
        t.watchForClose();
        t.write(ByteBuffer.wrap(": trailproof live stream\n\n".getBytes(StandardCharsets.US_ASCII)));
        t.scheduleHeartbeat();
    }

    @Override
    XnioIoThread ioThread() {
        return ex.getIoThread();
    }

    /** The response is written until the stream ends or a write fails. */
    @Override
    boolean writable() {
        return true;
    }

    @Override
    void write(List<Delivery> events) {
        ByteBuffer[] frames = new ByteBuffer[events.size()];
        for (int i = 0; i < frames.length; i++) {
            frames[i] = events.get(i).sseFrame();
        }
        write(frames);
    }

    /** Stops reading the connection (see {@link #unwatch}). */
    @Override
    void beforeEnd() {
        unwatch();
    }

    @Override
    void endOverflow(long resumeFrom) {
        sendLast(ByteBuffer.wrap(("event: overflow\ndata: {\"resume_from\": " + resumeFrom + "}\n\n")
                .getBytes(StandardCharsets.US_ASCII)));
    }

    @Override
    void endShutdown() {
        ex.endExchange();
    }

    @Override
    void closeConnection() {
        IoUtils.safeClose(ex.getConnection());
    }

    private void write(ByteBuffer... frames) {
        writing = true;
        lastWriteNanos = System.nanoTime();
        sender.send(frames, new IoCallback() {
            @Override
            public void onComplete(HttpServerExchange exchange, Sender s) {
                written();
            }

            @Override
            public void onException(HttpServerExchange exchange, Sender s, IOException e) {
                writeFailed();
            }
        });
    }

    /** The overflow frame, then the end of the response. */
    private void sendLast(ByteBuffer frame) {
        writing = true;
        sender.send(frame, new IoCallback() {
            @Override
            public void onComplete(HttpServerExchange exchange, Sender s) {
                writing = false;
                exchange.endExchange();
            }

            @Override
            public void onException(HttpServerExchange exchange, Sender s, IOException e) {
                writeFailed();
            }
        });
    }

    /**
     * Reads the connection while the stream runs (the request had no body, so whatever comes is
     * beyond it): end of input or a read error is the client gone. Undertow does not read a
     * connection while its exchange runs, so nothing else competes for these bytes.
     */
    private void watchForClose() {
        StreamSourceChannel in = source();
        if (in == null) {
            return;
        }
        in.getReadSetter().set(c -> {
            ByteBuffer sink = ByteBuffer.allocate(512);
            try {
                for (int n; (n = c.read(sink.clear())) != 0; ) {
                    if (n < 0) {
                        failed();
                        return;
                    }
                    ignoredBytes += n;
                    if (ignoredBytes > MAX_IGNORED_BYTES) {
                        failed();
                        return;
                    }
                }
            } catch (IOException e) {
                failed();
            }
        });
        in.resumeReads();
    }

    /** Stops reading before the response ends, so the connection goes back to Undertow as it found it. */
    private void unwatch() {
        StreamSourceChannel in = source();
        if (in == null) {
            return;
        }
        in.suspendReads();
        in.getReadSetter().set(null);
    }

    /** The connection's own input (HTTP/1.1, the only protocol served); null for any other kind of connection. */
    private StreamSourceChannel source() {
        return ex.getConnection() instanceof AbstractServerConnection c ? c.getChannel().getSourceChannel() : null;
    }

    /** Checks three times a heartbeat whether the stream has been quiet for a whole one. */
    private void scheduleHeartbeat() {
        ex.getIoThread().executeAfter(() -> {
            if (finished || subscription.released()) {
                return;
            }
            if (!writing && System.nanoTime() - lastWriteNanos >= heartbeatNanos) {
                write(ByteBuffer.wrap(KEEP_ALIVE));
            }
            scheduleHeartbeat();
        }, Math.max(1, TimeUnit.NANOSECONDS.toMillis(heartbeatNanos) / 3), TimeUnit.MILLISECONDS);
    }
}
