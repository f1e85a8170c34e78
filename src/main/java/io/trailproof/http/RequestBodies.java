package io.trailproof.http;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import io.undertow.util.SameThreadExecutor;
import org.xnio.IoUtils;
import org.xnio.XnioExecutor;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Request bodies: received in full before any worker thread is involved, bounded in size, time and
 * memory, then handed to the endpoint. JSON only (415 otherwise).
 *
 * <p>{@link #receive} runs on the connection's I/O thread and reads without blocking, so a client
 * that sends its body slowly holds a connection, never a worker. A declared length over the limit
 * is refused before a byte of the body is read; a chunked body is counted as it arrives and refused
 * the moment it passes the limit, so nothing beyond the limit is
 * ever held (the size is counted here, not by Undertow's entity-size option, which would drop a
 * chunked request's connection without an answer). A body that has not fully arrived within the body timeout loses its connection.
 *
 * <p>Memory: a body's array grows as its bytes arrive (a declared length is a promise, not memory
 * to set aside). A body counts against the {@link InFlightBudget} from its first byte until the
 * answer has been sent: a declared length whole from its first byte, a chunked body byte by byte
 * as it arrives. When the budget is taken, reading the body pauses (the client waits, TCP holds
 * the rest) for up to {@link #BUDGET_WAIT_MILLIS}; then the answer is 503 with {@code Retry-After}.
 * A body that could never fit the budget is a 413. One client address holds at most its share of the
 * budget ({@link InFlightBudget#perAddress}): its further bodies wait for its own requests to end,
 * and other addresses are admitted meanwhile.
 */
final class RequestBodies {

    private static final System.Logger LOG = System.getLogger(RequestBodies.class.getName());
    private static final AttachmentKey<byte[]> BODY = AttachmentKey.create(byte[].class);
    private static final AttachmentKey<Held> HELD = AttachmentKey.create(Held.class);

    /** How long a request waits for room in the budget before it is answered 503. */
    static final long BUDGET_WAIT_MILLIS = 2000;

    /** How often a paused body checks whether the budget has room again. */
    private static final long BUDGET_POLL_MILLIS = 5;

    /** Seconds a client refused for lack of memory is told to wait. */
    static final String BUSY_RETRY_AFTER_SECONDS = "1";

    private static final Runnable NOTHING = () -> { };

    /** First array for a body; it doubles from there, up to the declared length when there is one. */
    private static final int INITIAL_BODY_BYTES = 16 * 1024;

    private final long maxBodyBytes;
    private final long bodyTimeoutMillis;
    private final InFlightBudget budget;

    RequestBodies(long maxBodyBytes, long bodyTimeoutMillis, InFlightBudget budget) {
        this.maxBodyBytes = maxBodyBytes;
        this.bodyTimeoutMillis = bodyTimeoutMillis;
        this.budget = budget;
    }

    /**
     * On the I/O thread: receives the whole body, then runs {@code then}. A body over the limit goes
     * to {@code refuse} as a 413, one that finds no room in the memory budget in time as a 503; a
     * body that stalls past the timeout, or a client that goes away, ends with the connection
     * closed and neither callback run.
     */
    void receive(HttpServerExchange ex, Runnable then, Consumer<ApiException> refuse) {
        if (bodiless(ex)) {
            // Most requests (every GET) have no body: no intake, no budget share, and no deadline
            // timer, whose scheduling and cancelling on the I/O thread was a measurable part of a
            // root request's cost.
            then.run();
            return;
        }
        long declared = ex.getRequestContentLength();
        if (declared > maxBodyBytes) {
            refuse.accept(tooLarge());
            return;
        }
        if (declared > 0 && !budget.fits(declared)) {
            refuse.accept(tooLargeForMemory(declared));
            return;
        }
        // Counted here, not by Undertow's MAX_ENTITY_SIZE: that check drops a chunked request's
        // connection without an answer, where this one answers 413 first.
        Intake intake = new Intake(ex, new Body(declared), hold(ex), then, refuse);
        intake.deadline = ex.getIoThread().executeAfter(() -> {
            LOG.log(System.Logger.Level.INFO, "closing a connection from " + ex.getSourceAddress()
                    + ": its request body did not arrive within " + bodyTimeoutMillis + " ms");
            intake.held.giveAll();
            abandon(ex);
        }, bodyTimeoutMillis, TimeUnit.MILLISECONDS);
        UnreadBody.receiving(ex);
        ex.getRequestReceiver().receivePartialBytes((e, part, last) -> {
            if (intake.refused) {
                // The rest of a refused body is read and dropped: for a body refused for lack of room, to
                // its end, where the refusal is answered; for any other refusal, after the answer, within
                // the bounds of UnreadBody.
                if (intake.deferred != null) {
                    intake.dropped += part.length;
                    if (last) {
                        intake.deadline.remove();
                        intake.refuse.accept(intake.deferred);
                    } else if (intake.body.size() + intake.dropped > maxBodyBytes) {
                        intake.deadline.remove();
                        abandon(e);
                    }
                } else {
                    UnreadBody.dropped(e, part.length, last);
                }
                return;
            }
            if (part.length > 0) {
                intake.pending.add(part);
            }
            intake.last |= last;
            if (!intake.paused) {
                intake.admit();
            }
            // While paused, the retry already scheduled takes the parts in order. The exchange is
            // marked dispatched so that Undertow, seeing reads suspended when this callback
            // returns, does not end it (with an empty 200).
            if (intake.paused) {
                e.dispatch(SameThreadExecutor.INSTANCE, NOTHING);
            }
        }, (e, failure) -> {
            intake.deadline.remove();
            intake.held.giveAll();
            abandon(e);
        });
    }

    /** One body being received: the parts not yet admitted to the budget, and where it stands. */
    private final class Intake {
        final HttpServerExchange ex;
        final Body body;
        final Held held;
        final Runnable then;
        final Consumer<ApiException> refuse;
        final ArrayDeque<byte[]> pending = new ArrayDeque<>();
        XnioExecutor.Key deadline;
        boolean last;
        boolean refused;
        ApiException deferred;
        long dropped;
        boolean paused;
        long waitingSince;

        Intake(HttpServerExchange ex, Body body, Held held, Runnable then, Consumer<ApiException> refuse) {
            this.ex = ex;
            this.body = body;
            this.held = held;
            this.then = then;
            this.refuse = refuse;
        }

        /** On the I/O thread: takes the pending parts into the body as far as the budget allows. */
        void admit() {
            while (!pending.isEmpty()) {
                byte[] part = pending.peek();
                if (body.size() + (long) part.length > maxBodyBytes) {
                    refuseWith(tooLarge());
                    return;
                }
                // A declared length is taken whole with its first bytes, so that requests waiting
                // for room never hold part of it each and block one another until all time out;
                // a chunked body, whose size is unknown, is taken as it arrives.
                long weight = body.declared >= 0 ? (body.size() == 0 ? body.declared : 0) : part.length;
                if (!budget.fits(held.weight() + weight)) {
                    refuseWith(tooLargeForMemory(body.size() + (long) part.length));
                    return;
                }
                if (weight > 0 && !held.tryTake(weight)) {
                    long now = System.nanoTime();
                    if (!paused) {
                        paused = true;
                        waitingSince = now;
                        ex.getRequestReceiver().pause();
                    } else if (now - waitingSince > TimeUnit.MILLISECONDS.toNanos(BUDGET_WAIT_MILLIS)) {
                        refuseWith(busy());
                        return;
                    }
                    ex.getIoThread().executeAfter(this::admit, BUDGET_POLL_MILLIS, TimeUnit.MILLISECONDS);
                    return;
                }
                pending.poll();
                body.append(part);
            }
            if (paused) {
                paused = false;
                ex.getRequestReceiver().resume();
            }
            if (last) {
                deadline.remove();
                ex.putAttachment(BODY, body.bytes());
                then.run();
            }
        }

        /**
         * Refuses the request. A body refused for lack of room (a 503, which the client is meant to
         * retry) is first read to its end and dropped, within the size limit and the body timeout,
         * and then answered: a client that sends its whole body before it reads (the JDK's does)
         * would otherwise find the connection reset under its writes and lose the answer. Any other
         * refusal (a body too large, which may be endless) is answered at once; the rest is read and
         * dropped within the bounds of {@link UnreadBody}, then the connection closes.
         */
        private void refuseWith(ApiException answer) {
            refused = true;
            pending.clear();
            held.giveAll();
            if (paused) {
                paused = false;
                ex.getRequestReceiver().resume();
            }
            if (answer.status() == 503 && !last) {
                deferred = answer;
                return;
            }
            deadline.remove();
            refuse.accept(answer);
        }
    }

    /**
     * On a worker thread, once a batch is parsed: raises the request's weight to at least
     * {@link InFlightBudget#WEIGHT_PER_EVENT} per event before the events are sealed, waiting for
     * room as a body does. 413 when that could never fit, 503 when no room came in time.
     */
    void holdEvents(HttpServerExchange ex, int events) throws ApiException, InterruptedException {
        holdAtLeast(ex, (long) events * InFlightBudget.WEIGHT_PER_EVENT, "the batch of " + events + " events");
    }

    /**
     * As {@link #holdEvents}, for a body that grew after it was received: a decompressed body holds
     * at least its own size (OTLP with {@code Content-Encoding: gzip}).
     */
    void holdBytes(HttpServerExchange ex, long bytes) throws ApiException, InterruptedException {
        holdAtLeast(ex, bytes, "the decompressed body of " + bytes + " bytes");
    }

    private void holdAtLeast(HttpServerExchange ex, long wanted, String what) throws ApiException, InterruptedException {
        Held held = hold(ex);
        long extra = wanted - held.weight();
        if (extra <= 0) {
            return;
        }
        if (!budget.fits(wanted)) {
            throw new ApiException(413, what + " needs more memory than this server sets "
                    + "aside for one client's requests (" + budget.perAddress() + " request bytes, "
                    + "limits.max-in-flight-bytes-per-address of limits.max-in-flight-bytes); "
                    + "send fewer events at once or give the server a larger heap");
        }
        if (!held.take(extra, BUDGET_WAIT_MILLIS)) {
            throw busy();
        }
    }

    /** What the exchange holds of the budget; given back when the exchange completes. */
    private Held hold(HttpServerExchange ex) {
        Held held = ex.getAttachment(HELD);
        if (held == null) {
            InetSocketAddress source = ex.getSourceAddress();
            Held created = new Held(source == null ? null : source.getAddress());
            ex.putAttachment(HELD, created);
            ex.addExchangeCompleteListener((e, next) -> {
                created.giveAll();
                next.proceed();
            });
            held = created;
        }
        return held;
    }

    /** One request's share of the budget, counted against its client address. */
    private final class Held {
        private final InetAddress from;
        private final AtomicLong weight = new AtomicLong();

        Held(InetAddress from) {
            this.from = from;
        }

        long weight() {
            return weight.get();
        }

        boolean tryTake(long n) {
            if (!budget.tryTake(from, n)) {
                return false;
            }
            weight.addAndGet(n);
            return true;
        }

        boolean take(long n, long millis) throws InterruptedException {
            if (!budget.take(from, n, millis)) {
                return false;
            }
            weight.addAndGet(n);
            return true;
        }

        void giveAll() {
            long w = weight.getAndSet(0);
            if (w > 0) {
                budget.give(from, w);
            }
        }
    }

    /**
     * A body as it arrives. The array grows with the bytes received (four times larger at each
     * step, capped at the declared length: a 455 KB batch is copied three times instead of five), so a length declared but not sent costs nothing; {@link #bytes} hands over
     * the array itself when it is exactly full, which it is at the end of a body of declared length.
     */
    private static final class Body {
        private final long declared;
        private byte[] buf = new byte[0];
        private int count;

        Body(long declared) {
            this.declared = declared;
        }

        void append(byte[] part) {
            int need = count + part.length;
            if (need > buf.length) {
                long grown = Math.max(need, Math.max(INITIAL_BODY_BYTES, 4L * buf.length));
                if (declared >= need) {
                    grown = Math.min(grown, declared);
                }
                buf = Arrays.copyOf(buf, (int) Math.min(grown, Integer.MAX_VALUE - 8));
            }
            System.arraycopy(part, 0, buf, count, part.length);
            count = need;
        }

        int size() {
            return count;
        }

        byte[] bytes() {
            return count == buf.length ? buf : Arrays.copyOf(buf, count);
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

    /**
     * The received body as it came, whatever its type: for endpoints that accept other types than
     * JSON and check the type themselves (OTLP, src/site/ingestion.md#otlp).
     */
    byte[] raw(HttpServerExchange ex) {
        byte[] body = ex.getAttachment(BODY);
        return body != null ? body : new byte[0];
    }

    /** The body limit ({@code limits.max-body-bytes}); also the limit of a body once decompressed. */
    long maxBodyBytes() {
        return maxBodyBytes;
    }

    /** The received body of a JSON request. */
    byte[] read(HttpServerExchange ex) throws ApiException, IOException {
        String type = ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE);
        if (type == null || !isJson(type)) {
            throw new ApiException(415, "the body must be JSON: send Content-Type: application/json");
        }
        byte[] body = ex.getAttachment(BODY);
        if (body == null) {
            if (bodiless(ex)) {
                return new byte[0];
            }
            throw new IllegalStateException("the body is read by receive() before the endpoint runs");
        }
        return body;
    }

    /** True when the request declares no body: {@code Content-Length: 0}, or neither a length nor a transfer coding. */
    static boolean bodiless(HttpServerExchange ex) {
        long declared = ex.getRequestContentLength();
        return declared == 0 || declared < 0 && !ex.getRequestHeaders().contains(Headers.TRANSFER_ENCODING);
    }

    private ApiException tooLarge() {
        return new ApiException(413, "the request body is larger than the limit of " + maxBodyBytes + " bytes");
    }

    private ApiException tooLargeForMemory(long bytes) {
        return new ApiException(413, "a request body of " + bytes + " bytes needs more memory than this server sets "
                + "aside for one client's requests (" + budget.perAddress() + " request bytes, "
                + "limits.max-in-flight-bytes-per-address of limits.max-in-flight-bytes, both sized from the heap "
                + "unless set); send it in smaller batches or give the server a larger heap");
    }

    private ApiException busy() {
        return new ApiException(503, "the server is short of memory for requests now (other requests' data, or this "
                + "client's own earlier requests, are being processed); retry in a moment",
                Map.of("Retry-After", BUSY_RETRY_AFTER_SECONDS));
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
