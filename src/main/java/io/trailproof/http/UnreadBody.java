package io.trailproof.http;

import io.undertow.io.IoCallback;
import io.undertow.io.Sender;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.protocol.http.HttpContinue;
import io.undertow.util.AttachmentKey;
import io.undertow.util.SameThreadExecutor;
import org.xnio.IoUtils;
import org.xnio.XnioExecutor;
import org.xnio.channels.StreamSourceChannel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * An answer sent before the request body was read (a 413 for a declared length over the limit, a
 * 401, 404, 405, ...; src/site/http-api.md#conventions). Closing the connection right after it would
 * leave the client's unsent body in flight: the server's kernel answers those bytes with a reset,
 * and a client that writes its whole body before it reads (Node's {@code http}, the JDK's
 * {@code HttpClient}) loses the answer with its connection ({@code EPIPE}, "connection reset").
 *
 * <p>So the answer is sent with {@code Connection: close}, and then the rest of the body is read and
 * dropped until it ends, whereupon the connection closes cleanly. The drain is bounded: at most
 * {@link #MAX_DRAIN_BYTES} and {@link #MAX_DRAIN_MILLIS} from the refusal; past either the connection
 * is closed as it is. It runs on the connection's I/O thread without blocking, holds no worker and
 * one small buffer, and counts nothing against the memory for requests.
 *
 * <p>A request that asked for {@code 100-continue} and was not given it has sent no body: it is
 * answered and closed at once, as before.
 */
final class UnreadBody {

    /** Bytes of a refused body read and dropped at most; a longer body loses its connection. */
    static final long MAX_DRAIN_BYTES = 64L << 20;

    /** How long a refused body is read and dropped at most, from the refusal. */
    static final long MAX_DRAIN_MILLIS = 5_000;

    private static final AttachmentKey<Drain> DRAIN = AttachmentKey.create(Drain.class);
    private static final AttachmentKey<Boolean> RECEIVING = AttachmentKey.create(Boolean.class);
    private static final int SINK_BYTES = 16 * 1024;
    private static final Runnable NOTHING = () -> { };

    private UnreadBody() {
    }

    /**
     * Sends {@code body} as the whole answer (status and headers already set) to a request whose body
     * has not been read to its end, then drains what is left of it. On the I/O thread.
     */
    static void answer(HttpServerExchange ex, ByteBuffer body) {
        ex.setPersistent(false);
        if (HttpContinue.requiresContinueResponse(ex)) {
            ex.getResponseSender().send(body); // no body is coming: answer and close
            return;
        }
        Drain drain = drainOf(ex);
        if (ex.getAttachment(RECEIVING) == null) {
            // Undertow ends an exchange its handler returned from without a dispatch (or reads resumed,
            // as a receiver's are), which would close the connection under the unread body: the drain
            // ends it instead.
            ex.dispatch(SameThreadExecutor.INSTANCE, NOTHING);
        }
        ex.getResponseSender().send(body, new IoCallback() {
            @Override
            public void onComplete(HttpServerExchange exchange, Sender sender) {
                // Not inline: a send that completes at once runs this inside the handler's call, where
                // Undertow refuses to resume reads on an exchange that is also dispatched.
                exchange.getIoThread().execute(drain::answered);
            }

            @Override
            public void onException(HttpServerExchange exchange, Sender sender, IOException e) {
                drain.giveUp();
            }
        });
    }

    /**
     * Marks {@code ex} as having its body read by a receiver ({@link RequestBodies}), which then reports
     * what it drops after a refusal through {@link #dropped}; call before the receiver starts.
     */
    static void receiving(HttpServerExchange ex) {
        ex.putAttachment(RECEIVING, Boolean.TRUE);
    }

    /**
     * For a body whose reading had begun when it was refused ({@link RequestBodies}): {@code bytes}
     * more were read and dropped, {@code last} when the body ended. False when the drain is over
     * (bound reached): nothing more need be read.
     */
    static boolean dropped(HttpServerExchange ex, long bytes, boolean last) {
        return drainOf(ex).dropped(bytes, last);
    }

    private static Drain drainOf(HttpServerExchange ex) {
        Drain d = ex.getAttachment(DRAIN);
        if (d == null) {
            d = new Drain(ex);
            ex.putAttachment(DRAIN, d);
        }
        return d;
    }

    /** The drain of one refused body; I/O thread only. */
    private static final class Drain {
        private final HttpServerExchange ex;
        private final XnioExecutor.Key deadline;
        private boolean answered;
        private boolean ended;
        private boolean over;
        private long drained;

        Drain(HttpServerExchange ex) {
            this.ex = ex;
            this.deadline = ex.getIoThread().executeAfter(this::giveUp, MAX_DRAIN_MILLIS, TimeUnit.MILLISECONDS);
        }

        /** The answer is written: end now if the body already ended, else read it (unless a receiver already does). */
        void answered() {
            answered = true;
            if (ended) {
                finish();
                return;
            }
            StreamSourceChannel in = ex.getRequestChannel(); // null when a receiver took it: it reports by dropped()
            if (in != null) {
                in.getReadSetter().set(this::read);
                read(in);
                if (!over) {
                    in.resumeReads();
                }
            }
        }

        boolean dropped(long bytes, boolean last) {
            if (over) {
                return false;
            }
            drained += bytes;
            if (last) {
                ended = true;
                if (answered) {
                    finish();
                }
                return false;
            }
            if (drained > MAX_DRAIN_BYTES) {
                giveUp();
                return false;
            }
            return true;
        }

        private void read(StreamSourceChannel in) {
            ByteBuffer sink = ByteBuffer.allocate(SINK_BYTES);
            try {
                while (!over) {
                    int n = in.read(sink.clear());
                    if (n == 0) {
                        return;
                    }
                    if (!dropped(Math.max(n, 0), n < 0)) {
                        return;
                    }
                }
            } catch (IOException e) {
                giveUp();
            }
        }

        /** The body ended and the answer is out: the exchange ends and the connection closes cleanly. */
        private void finish() {
            over = true;
            deadline.remove();
            ex.endExchange();
        }

        /** A bound was reached or the connection failed: close it as it is. */
        void giveUp() {
            if (over) {
                return;
            }
            over = true;
            deadline.remove();
            IoUtils.safeClose(ex.getConnection());
            ex.endExchange();
        }
    }
}
