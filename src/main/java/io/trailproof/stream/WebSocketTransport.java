package io.trailproof.stream;

import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.websockets.WebSocketConnectionCallback;
import io.undertow.websockets.WebSocketProtocolHandshakeHandler;
import io.undertow.websockets.core.AbstractReceiveListener;
import io.undertow.websockets.core.WebSocketCallback;
import io.undertow.websockets.core.WebSocketChannel;
import io.undertow.websockets.core.WebSockets;
import org.xnio.IoUtils;
import org.xnio.XnioIoThread;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The stream as a WebSocket (RFC 6455, Undertow's own implementation; src/site/live-stream.md): one text message
 * per event, a ping every heartbeat, close code 1013 {@code slow consumer; resume from N} on
 * overflow and 1001 on a stop. Messages the client sends are read and ignored (a close is answered).
 *
 * <p>As for SSE, writes never block: a small batch is in flight at a time, the next one is taken
 * from the buffer when the last message of it has been written.
 */
final class WebSocketTransport extends PumpedTransport {

    private static final int BATCH = 16;
    private static final long MAX_CLIENT_MESSAGE = 4096;
    /** A client that does not answer our close frame this long after it was written is disconnected. */
    private static final long CLOSE_GRACE_SECONDS = 30;

    private final WebSocketChannel channel;
    private final long heartbeatMillis;

    private WebSocketTransport(WebSocketChannel channel, Subscription subscription, Duration heartbeat) {
        super(subscription, BATCH);
        this.channel = channel;
        this.heartbeatMillis = Math.max(1, heartbeat.toMillis());
    }

    /**
     * Answers the upgrade request on {@code ex}; once the handshake is done the stream runs on the
     * new channel. A handshake that fails (not a valid WebSocket request) frees the subscription.
     */
    static void start(HttpServerExchange ex, Subscription subscription, Duration heartbeat) throws Exception {
        ex.addExchangeCompleteListener((e, next) -> {
            if (e.getStatusCode() != 101) {
                subscription.release();
            }
            next.proceed();
        });
        WebSocketConnectionCallback onConnect = (exchange, channel) ->
                new WebSocketTransport(channel, subscription, heartbeat).open();
        new WebSocketProtocolHandshakeHandler(onConnect, WebSocketTransport::notAHandshake).handleRequest(ex);
    }

    /** An upgrade request that no WebSocket version accepts: a 400 in the API's error shape. */
    private static void notAHandshake(HttpServerExchange ex) {
        ex.setStatusCode(400);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.getResponseSender().send("{\"error\":\"the request asks for a WebSocket but is not a valid RFC 6455 handshake "
                + "(GET with Upgrade: websocket, Connection: Upgrade, Sec-WebSocket-Key and Sec-WebSocket-Version: 13); "
                + "leave out the Upgrade header for Server-Sent Events\"}");
    }

    private void open() {
        writeTimeout = WriteTimeouts.suspend(channel);
        channel.getReceiveSetter().set(new AbstractReceiveListener() {
            // The client has nothing to say: what it sends is read and dropped, and a message larger
            // than this ends the connection instead of growing a buffer.
            @Override
            protected long getMaxTextBufferSize() {
                return MAX_CLIENT_MESSAGE;
            }

            @Override
            protected long getMaxBinaryBufferSize() {
                return MAX_CLIENT_MESSAGE;
            }
        });
        channel.addCloseTask(c -> {
            finished = true;
            subscription.release();
        });
        channel.resumeReceives();
        subscription.attach(this);
        schedulePing();
        wake();
    }

    @Override
    XnioIoThread ioThread() {
        return channel.getIoThread();
    }

    @Override
    boolean writable() {
        return channel.isOpen();
    }

    /** One text message an event; the completion of the last pumps again. */
    @Override
    void write(List<Delivery> batch) {
        writing = true;
        for (int i = 0; i < batch.size(); i++) {
            boolean last = i == batch.size() - 1;
            WebSockets.sendText(ByteBuffer.wrap(batch.get(i).payload()), channel, last ? new WebSocketCallback<>() {
                @Override
                public void complete(WebSocketChannel c, Void context) {
                    written();
                }

                @Override
                public void onError(WebSocketChannel c, Void context, Throwable throwable) {
                    writeFailed();
                }
            } : null);
        }
    }

    @Override
    void endOverflow(long resumeFrom) {
        close(1013, "slow consumer; resume from " + resumeFrom);
    }

    @Override
    void endShutdown() {
        close(1001, "server shutting down");
    }

    @Override
    void closeConnection() {
        IoUtils.safeClose(channel);
    }

    /** Sends the close frame; once it is written, the client has {@link #CLOSE_GRACE_SECONDS} to answer it. */
    private void close(int code, String reason) {
        WebSockets.sendClose(code, reason, channel, new WebSocketCallback<>() {
            @Override
            public void complete(WebSocketChannel c, Void context) {
                c.getIoThread().executeAfter(() -> IoUtils.safeClose(c), CLOSE_GRACE_SECONDS, TimeUnit.SECONDS);
            }

            @Override
            public void onError(WebSocketChannel c, Void context, Throwable throwable) {
                IoUtils.safeClose(c);
            }
        });
    }

    private void schedulePing() {
        channel.getIoThread().executeAfter(() -> {
            if (finished || !channel.isOpen()) {
                return;
            }
            WebSockets.sendPing(ByteBuffer.allocate(0), channel, null);
            schedulePing();
        }, heartbeatMillis, TimeUnit.MILLISECONDS);
    }
}
