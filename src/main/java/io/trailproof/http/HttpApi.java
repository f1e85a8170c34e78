package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.Settings;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.timestamp.TimestampService;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import org.xnio.Options;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The HTTP API on Undertow. {@link #stop} stops accepting, lets requests in flight finish, then
 * stops the listener; the caller closes the ledger afterwards.
 *
 * <p>No client can hold a worker thread by being slow: request heads must arrive within the header
 * timeout, bodies are received without a worker and within the body timeout, and a connection on
 * which nothing moves for the idle timeout (no new request, or an answer the client does not read)
 * is closed.
 */
public final class HttpApi {

    private final Undertow undertow;
    private final Draining draining;

    public HttpApi(Settings settings, Ledger ledger, SearchIndex index, TimestampService timestamps) {
        Router router = new Router();
        router.add("GET", "/health", null, (ex, p) -> Responses.json(ex, 200, health(ledger)));
        RequestBodies bodies = new RequestBodies(settings.maxBodyBytes(), settings.bodyTimeoutMs());
        new LedgerEndpoints(ledger, bodies, settings.maxBatchEvents()).register(router);
        new SearchEndpoints(index).register(router);
        new TimestampEndpoints(timestamps, bodies).register(router);
        new ExportEndpoints(ledger, timestamps::forEachOldestFirst).register(router);
        draining = new Draining(new ApiHandler(router, new Authenticator(settings.apiKeys()), bodies));
        undertow = Undertow.builder()
                .addHttpListener(settings.port(), settings.host())
                .setWorkerThreads(Math.max(64, Runtime.getRuntime().availableProcessors() * 32))
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, settings.idleTimeoutMs())
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, settings.headerTimeoutMs())
                .setSocketOption(Options.WRITE_TIMEOUT, settings.idleTimeoutMs())
                .setHandler(draining)
                .build();
    }

    /**
     * {@code status} is "ok" while the ledger has no problem and "degraded" while it has one (an
     * accepted loss of acknowledged events, derived files found wrong, writes stopped); each is a
     * sentence in {@code problems}.
     */
    private static ObjectNode health(Ledger ledger) {
        List<String> problems = ledger.health().problems();
        ObjectNode o = Responses.MAPPER.createObjectNode()
                .put("status", problems.isEmpty() ? "ok" : "degraded")
                .put("tree_size", ledger.size())
                .put("writable", !ledger.failed());
        ArrayNode list = o.putArray("problems");
        problems.forEach(list::add);
        return o;
    }

    public void start() {
        undertow.start();
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
    }

    /** Refuses new requests (503), waits up to {@code waitMillis} for those in flight, then stops. */
    public void stop(long waitMillis) throws InterruptedException {
        draining.drain();
        draining.awaitIdle(waitMillis);
        undertow.stop();
    }
}
