package io.trailproof.testing;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The JDK's {@code java.net.http.WebSocket} as a stream client: text messages are queued, pings
 * counted, the close code and reason kept. {@link #stalled} asks for no message until
 * {@link #resume}, which stalls the connection for real (the JDK client reads on demand).
 */
public final class WsClient implements WebSocket.Listener {

    public record Closed(int code, String reason) {
    }

    public final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    public final CompletableFuture<Closed> closed = new CompletableFuture<>();
    public final AtomicInteger pings = new AtomicInteger();
    private final StringBuilder partial = new StringBuilder();
    private final boolean stalled;
    private WebSocket socket;

    private WsClient(boolean stalled) {
        this.stalled = stalled;
    }

    public static WsClient connect(int port, String pathAndQuery) throws Exception {
        return connect(port, pathAndQuery, false);
    }

    public static WsClient connect(int port, String pathAndQuery, boolean stalled) throws Exception {
        WsClient c = new WsClient(stalled);
        c.socket = HttpClient.newHttpClient().newWebSocketBuilder().connectTimeout(Duration.ofSeconds(5))
                .buildAsync(URI.create("ws://127.0.0.1:" + port + pathAndQuery), c).get(10, TimeUnit.SECONDS);
        return c;
    }

    /** Starts reading a stalled client: every message from now on. */
    public void resume() {
        socket.request(Long.MAX_VALUE);
    }

    @Override
    public void onOpen(WebSocket webSocket) {
        if (!stalled) {
            webSocket.request(Long.MAX_VALUE);
        }
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            messages.add(partial.toString());
            partial.setLength(0);
        }
        return null;
    }

    @Override
    public CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
        pings.incrementAndGet();
        return WebSocket.Listener.super.onPing(webSocket, message);
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        closed.complete(new Closed(statusCode, reason));
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        closed.completeExceptionally(error);
    }

    public String next(long millis) throws InterruptedException {
        return messages.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** Sends a text message to the server. */
    public void send(String text) throws Exception {
        socket.sendText(text, true).get(10, TimeUnit.SECONDS);
    }

    public void abort() {
        socket.abort();
    }
}
