package io.trailproof.bench;

import io.undertow.Undertow;
import io.undertow.util.Headers;

import java.io.Closeable;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The second same-run baseline of the root rows: the HTTP server the service is built on,
 * Undertow at the service's version and with its defaults, with one handler that writes
 * {@link FloorServer}'s fixed answer on the I/O thread, as the service answers root. Between the
 * floor and the service it separates what the framework costs a request from what the service adds.
 */
final class UndertowHello implements Closeable {

    private final Undertow undertow;

    UndertowHello() {
        ByteBuffer answer = ByteBuffer.wrap(FloorServer.BODY).asReadOnlyBuffer();
        undertow = Undertow.builder()
                .addHttpListener(0, "127.0.0.1")
                .setHandler(ex -> {
                    ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
                    ex.getResponseSender().send(answer.duplicate());
                })
                .build();
        undertow.start();
    }

    int port() {
        return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
    }

    @Override
    public void close() {
        undertow.stop();
    }
}
