package io.trailproof.stream;

import io.trailproof.index.EventMatcher;
import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The live stream (src/site/live-stream.md): admits streams up to {@link StreamOptions#maxSubscribers()}, serves
 * each as SSE or a WebSocket, feeds them all from one {@link Dispatcher} thread, and ends them on a
 * stop. The HTTP layer checks the request (role, parameters, query) and hands over a matcher and a
 * start position; everything after that is here.
 *
 * <p>Ingestion never waits for a stream: the ledger only signals the dispatcher, and a connection
 * that cannot keep up is ended by the overflow rule rather than slowing anything else.
 */
public final class StreamHub implements AutoCloseable {

    private final StreamOptions options;
    private final Dispatcher dispatcher;
    private final AtomicInteger open = new AtomicInteger();
    private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public StreamHub(Ledger ledger, StreamOptions options) {
        this(EventSource.of(ledger), options);
    }

    StreamHub(EventSource source, StreamOptions options) {
        this.options = options;
        this.dispatcher = new Dispatcher(source);
    }

    public void start() {
        dispatcher.start();
    }

    /** The stream cannot be opened now; the message says why (the HTTP answer is a 503). */
    public static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** True when {@code ex} asks for a WebSocket ({@code Upgrade: websocket}). */
    public static boolean asksForWebSocket(HttpServerExchange ex) {
        String upgrade = ex.getRequestHeaders().getFirst(Headers.UPGRADE);
        return upgrade != null && upgrade.trim().equalsIgnoreCase("websocket");
    }

    /**
     * Starts streaming on {@code ex} (its I/O thread): every event at or after {@code from} that
     * {@code matcher} accepts, as SSE or, when the request asks for it, a WebSocket. {@code from} must
     * not be beyond the ledger's readable size when the request arrived.
     *
     * @throws Refused when {@link StreamOptions#maxSubscribers()} streams are open or the service is stopping
     */
    public void open(HttpServerExchange ex, EventMatcher matcher, long from) throws Exception {
        if (closed) {
            throw new Refused("the service is shutting down; reconnect in a few seconds");
        }
        if (open.incrementAndGet() > options.maxSubscribers()) {
            open.decrementAndGet();
            throw new Refused(options.maxSubscribers() + " streams are open, the most this server serves "
                    + "(stream.max-subscribers); retry later");
        }
        Subscription[] self = new Subscription[1];
        Subscription s = new Subscription(matcher, from, options.maxBufferedEvents(), dispatcher::wake, () -> {
            subscriptions.remove(self[0]);
            open.decrementAndGet();
        });
        self[0] = s;
        subscriptions.add(s);
        try {
            if (asksForWebSocket(ex)) {
                WebSocketTransport.start(ex, s, options.heartbeat());
            } else {
                SseTransport.start(ex, s, options.heartbeat());
            }
        } catch (Exception | Error e) {
            s.release();
            throw e;
        }
        dispatcher.add(s);
    }

    /** Streams open now. */
    public int openStreams() {
        return open.get();
    }

    /**
     * Ends every stream (SSE: the response ends; WebSocket: close 1001), waits up to {@code millis}
     * for them to finish, then closes the connections still open.
     */
    public void close(long millis) throws InterruptedException {
        closed = true;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        dispatcher.close(millis);
        while (open.get() > 0 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        for (Subscription s : subscriptions) {
            Transport t = s.transport();
            if (t != null) {
                t.abort();
            }
            s.release();
        }
    }

    @Override
    public void close() throws InterruptedException {
        close(2_000);
    }
}
