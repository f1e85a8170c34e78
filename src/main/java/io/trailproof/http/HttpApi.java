package io.trailproof.http;

import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.handlers.GracefulShutdownHandler;

import java.net.InetSocketAddress;

/**
 * The HTTP API on Undertow. {@link #stop} stops accepting, lets requests in flight finish, then
 * stops the listener; the caller closes the ledger afterwards.
 */
public final class HttpApi {

    private final Undertow undertow;
    private final GracefulShutdownHandler graceful;

    public HttpApi(String host, int port, Ledger ledger, SearchIndex index, long maxBodyBytes, int maxBatchEvents) {
        Router router = new Router();
        router.add("GET", "/health", null, (ex, p) -> Responses.json(ex, 200, Responses.MAPPER.createObjectNode()
                .put("status", "ok").put("tree_size", ledger.size()).put("writable", !ledger.failed())));
        new LedgerEndpoints(ledger, new RequestBodies(maxBodyBytes), maxBatchEvents).register(router);
        new SearchEndpoints(index).register(router);
        graceful = Handlers.gracefulShutdown(new ApiHandler(router));
        undertow = Undertow.builder()
                .addHttpListener(port, host)
                .setWorkerThreads(Math.max(64, Runtime.getRuntime().availableProcessors() * 32))
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, maxBodyBytes)
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                .setHandler(graceful)
                .build();
    }

    public void start() {
        undertow.start();
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
    }

    /** Stops accepting requests, waits up to {@code waitMillis} for those in flight, then stops. */
    public void stop(long waitMillis) throws InterruptedException {
        graceful.shutdown();
        graceful.awaitShutdown(waitMillis);
        undertow.stop();
    }
}
