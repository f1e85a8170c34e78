package io.trailproof.http;

import io.undertow.server.Connectors;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderMap;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import io.undertow.util.Protocols;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the checks every request passes before routing cost on a {@code GET /v1/merkle/root} as wrk
 * sends it: the front door (framing, {@code Host}, {@code Origin}, the body time-out, the
 * {@code Cache-Control} header) and the request id, each against the same exchange handed straight
 * to the next handler, in the same run. The exchange is made for each call in every benchmark (its
 * making is in the baseline too), without a connection: the per-connection busy mark of
 * {@link ConnectionLimits} (one attachment read and one completion listener) is not in these figures,
 * nor any body time-out (a request that declares no body gets none).
 * In this package because the handlers are the server's own, not public API. Run:
 * {@code java -jar bench/target/trailproof-bench.jar FrontDoorBenchmarks}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class FrontDoorBenchmarks {

    private static final HttpHandler END = ex -> ex.setStatusCode(200);

    private HttpHandler frontDoor;
    private HttpHandler withRequestIds;

    @Setup(Level.Trial)
    public void setUp() {
        frontDoor = new FrontDoor(new HostNames("127.0.0.1", List.of()), 30_000, null, END);
        withRequestIds = new RequestIds(frontDoor, new SecureRandom());
    }

    /** A GET as wrk sends it: {@code Host} and nothing else; no body. */
    private static HttpServerExchange exchange() {
        HeaderMap request = new HeaderMap();
        request.put(Headers.HOST, "127.0.0.1:8080");
        HttpServerExchange ex = new HttpServerExchange(null, request, new HeaderMap(), Long.MAX_VALUE);
        ex.setRequestMethod(Methods.GET);
        ex.setProtocol(Protocols.HTTP_1_1);
        ex.setRequestURI("/v1/merkle/root");
        ex.setRequestPath("/v1/merkle/root");
        Connectors.terminateRequest(ex); // a GET without a body has ended with its head
        return ex;
    }

    /** The exchange handed straight to the next handler: the baseline. */
    @Benchmark
    public HttpServerExchange bare() throws Exception {
        HttpServerExchange ex = exchange();
        END.handleRequest(ex);
        return ex;
    }

    @Benchmark
    public HttpServerExchange frontDoor() throws Exception {
        HttpServerExchange ex = exchange();
        frontDoor.handleRequest(ex);
        return ex;
    }

    /** The request id, then the front door, as in the server. */
    @Benchmark
    public HttpServerExchange requestIdAndFrontDoor() throws Exception {
        HttpServerExchange ex = exchange();
        withRequestIds.handleRequest(ex);
        return ex;
    }
}
