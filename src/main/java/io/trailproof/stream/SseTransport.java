package io.trailproof.stream;

import io.undertow.io.IoCallback;
import io.undertow.io.Sender;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import org.xnio.IoUtils;

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
 */
final class SseTransport implements Transport {

    /** Events written per write; large enough to fill a socket buffer, small enough to stay fair. */
    private static final int BATCH = 256;
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final HttpServerExchange ex;
    private final Subscription subscription;
    private final Sender sender;
    private final long heartbeatNanos;
    private final PumpWakeup wakeup = new PumpWakeup();

    // I/O thread only.
    private boolean writing;
    private boolean finished;
    private long lastWriteNanos;
    private WriteTimeouts.Restore writeTimeout;

    private SseTransport(HttpServerExchange ex, Subscription subscription, Duration heartbeat) {
        this.ex = ex;
        this.subscription = subscription;
        this.heartbeatNanos = heartbeat.toNanos();
        ex.setStatusCode(200);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/event-stream");
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-cache");
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
        t.write(ByteBuffer.wrap(": trailproof live stream\n\n".getBytes(StandardCharsets.US_ASCII)));
        t.scheduleHeartbeat();
    }

    @Override
    public void wake() {
        wakeup.wake(ex.getIoThread(), this::pump);
    }

    @Override
    public void abort() {
        ex.getIoThread().execute(() -> {
            finished = true;
            IoUtils.safeClose(ex.getConnection());
        });
    }

    /** I/O thread: writes the next batch, or the ending once the buffer is empty. */
    private void pump() {
        if (writing || finished) {
            return;
        }
        EventBuffer buffer = subscription.buffer();
        List<Delivery> batch = buffer.take(BATCH);
        if (!batch.isEmpty()) {
            ByteBuffer[] frames = new ByteBuffer[batch.size()];
            for (int i = 0; i < frames.length; i++) {
                frames[i] = batch.get(i).sseFrame();
            }
            write(frames);
            if (buffer.size() == 0) {
                subscription.drained();
            }
            return;
        }
        Ending ending = buffer.ending();
        if (ending == null) {
            return;
        }
        finished = true;
        writeTimeout.restore();
        switch (ending) {
            case Ending.Overflow o -> sendLast(ByteBuffer.wrap(("event: overflow\ndata: {\"resume_from\": " + o.resumeFrom()
                    + "}\n\n").getBytes(StandardCharsets.US_ASCII)));
            case Ending.Shutdown s -> ex.endExchange();
            case Ending.Gone g -> IoUtils.safeClose(ex.getConnection());
        }
    }

    private void write(ByteBuffer... frames) {
        writing = true;
        lastWriteNanos = System.nanoTime();
        sender.send(frames, new IoCallback() {
            @Override
            public void onComplete(HttpServerExchange exchange, Sender s) {
                writing = false;
                pump();
            }

            @Override
            public void onException(HttpServerExchange exchange, Sender s, IOException e) {
                writing = false;
                failed();
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
                writing = false;
                failed();
            }
        });
    }

    private void failed() {
        finished = true;
        subscription.release();
        IoUtils.safeClose(ex.getConnection());
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
