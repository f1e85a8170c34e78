package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.access.AccessTrail;
import io.trailproof.backup.OnlineBackup;
import io.trailproof.checkpoint.CheckpointService;
import io.trailproof.checkpoint.Tiles;
import io.trailproof.checkpoint.TlogProofs;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.config.Settings;
import io.trailproof.core.policy.Effect;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyRejection;
import io.trailproof.erasure.ErasureService;
import io.trailproof.gate.Gate;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.metrics.ServiceMetrics;
import io.trailproof.otlp.TraceIngest;
import io.trailproof.signin.SignIn;
import io.trailproof.stream.StreamHub;
import io.trailproof.stream.StreamOptions;
import io.trailproof.timestamp.TimestampService;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import io.undertow.server.handlers.HttpContinueReadHandler;
import org.xnio.OptionMap;
import org.xnio.Options;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The HTTP API on Undertow. {@link #stop} stops accepting, lets requests in flight finish, then
 * stops the listener; the caller closes the ledger afterwards.
 *
 * <p>No client can hold a worker thread by being slow: request heads must arrive within the header
 * timeout, bodies are received without a worker and within the body timeout, and a connection on
 * which nothing moves for the idle timeout (no new request, or an answer the client does not read)
 * is closed.
 *
 * <p>Memory and connections are bounded whatever clients send: request bodies count against the
 * {@link InFlightBudget} as they arrive and until their answer is sent (beyond it: a short wait, then
 * 503 with {@code Retry-After}), at most {@code server.max-connections} connections are open, and one
 * address holds at most its share of them ({@link ConnectionLimits}). Before anything routes a
 * request, the {@link FrontDoor} checks its framing, {@code Host} and {@code Origin}.
 */
public final class HttpApi {

    private static final int WORKER_THREADS = Math.max(64, Runtime.getRuntime().availableProcessors() * 32);

    private final String host;
    private final int requestedPort;
    private final HttpHandler root;
    /** The outermost handler, also the source of the ids of Undertow's own refusals ({@link UndertowRefusals}). */
    private final RequestIds requestIds;
    private final OptionMap undertowOptions;
    private final OptionMap socketOptions;
    private final ConnectionLimits connections;
    /** Set by {@link #start}. */
    private Listener listener;
    private final Draining draining;
    private final InFlightBudget budget;
    private final StreamHub streams;
    private final Router router;
    private final Gate gate;
    /** The trail of who looked; null when {@code access-trail.enabled} is off. */
    private final AccessTrail accessTrail;
    /** {@code gate.policy-file}, or null. */
    private final Path policyFile;

    /**
     * Does the part of {@link #start} that depends on nothing of the service's ({@link Listener#prepare}),
     * so that a start can run it on another thread while it opens the ledger and the index.
     */
    public static void prepareListener() {
        Listener.prepare();
    }

    /**
     * {@code metrics} is null when {@code metrics.enabled} is false: nothing is recorded and /metrics is a 404.
     * {@code signIn} is null when people do not sign in (no {@code auth.oidc.issuer}): the /auth routes then answer 404.
     */
    public HttpApi(Settings settings, Ledger ledger, SearchIndex index, TimestampService timestamps,
                   CheckpointService checkpoints, Tiles tiles, ServiceMetrics metrics,
                   ClusterNode cluster, Clock clock,
                   ErasureService erasures, SignIn signIn) {
        router = new Router();
        // Answered on the I/O thread too: a few volatile reads cost less than waking a worker, which
        // was most of its latency and all of its tail.
        Router.Endpoint health = (ex, p) -> Responses.json(ex, 200, healthOf(ledger, checkpoints, index));
        router.add("GET", "/health", null, health, ex -> CompletableFuture.completedFuture(e -> health.handle(e, null)));
        budget = InFlightBudget.of(settings.hardening().maxInFlightBytes(),
                settings.hardening().maxInFlightBytesPerAddress());
        RequestBodies bodies = new RequestBodies(settings.maxBodyBytes(), settings.bodyTimeoutMs(), budget);
        Authenticator authenticator = new Authenticator(settings.apiKeys(), signIn != null);
        new AuthEndpoints(signIn).register(router);
        IdempotentRequests idempotency = new IdempotentRequests(ledger, authenticator);
        ClusterWrites clusterWrites = cluster == null ? null : new ClusterWrites(cluster, idempotency);
        new LedgerEndpoints(ledger, bodies, settings.maxBatchEvents(), idempotency)
                .withTlogProofs(new TlogProofEndpoint(new TlogProofs(ledger, checkpoints)))
                .withCluster(clusterWrites)
                .register(router);
        new ClusterEndpoints(ledger, cluster).register(router);
        new TraceEndpoint(new TraceIngest(ledger), bodies, clusterWrites).register(router);
        new SearchEndpoints(index, ledger::payloadAt).register(router);
        new TimestampEndpoints(timestamps, bodies).register(router);
        new ExportEndpoints(ledger, timestamps::forEachOldestFirst, checkpoints::noteFor).register(router);
        new PolicyEndpoints(ledger, bodies).register(router);
        Settings.Gate gateSettings = settings.gate();
        gate = new Gate(ledger, new GateWritePath(ledger, cluster), settings.redaction().redactor(),
                Effect.of(gateSettings.defaultEffect()), gateSettings.askTimeout(), gateSettings.approvalValidFor(), clock,
                settings.dataDir().resolve(Gate.DECISIONS_FILE));
        policyFile = gateSettings.policyFile().orElse(null);
        new GateEndpoints(gate, bodies, idempotency).register(router);
        new CoverageEndpoint(ledger).register(router);
        new ErasureEndpoints(erasures, bodies).register(router);
        streams = new StreamHub(ledger, new StreamOptions(settings.streams().maxSubscribers(),
                settings.streams().maxBufferedEvents(), settings.streams().heartbeat()));
        new StreamEndpoint(ledger, streams).register(router);
        new CheckpointEndpoints(checkpoints, tiles, settings.checkpoints().publicAccess()).register(router);
        // Metrics (src/site/operations.md): read at scrape time, written by RequestTelemetry around every request.
        if (metrics != null) {
            metrics.gauge("trailproof_stream_subscribers", "Live streams (SSE and WebSocket) open now",
                    streams::openStreams);
            router.get("/metrics", (ex, p) -> MetricsEndpoint.answer(ex, metrics));
        }
        new OpenApiEndpoint().register(router); // GET /v1/openapi.json
        new BackupEndpoint(new OnlineBackup(settings.dataDir(), ledger, timestamps::storeFiles,
                clock)).register(router);
        // A request sent with "Expect: 100-continue" gets its 100 when its body is first read, after
        // routing, authentication and the size check: a refused one is answered without the body being
        // sent, and an accepted one never waits out the client's expect timeout (curl: 1 s).
        HttpHandler api = new ApiHandler(router, authenticator, bodies, new MinTreeSize(ledger, settings.cluster().readWait()),
                signIn);
        accessTrail = settings.accessTrail() ? new AccessTrail(
                new AccessWritePath(ledger, cluster, index.backgroundRecords()), clock) : null;
        if (accessTrail != null) {
            api = new AccessRecording(api, accessTrail);
        }
        draining = new Draining(new HttpContinueReadHandler(api));
        if (metrics != null) {
            metrics.gauge("trailproof_requests_in_flight", "Requests taken in (their head read) and not yet answered",
                    draining::inFlight);
        }
        ConsoleHandler console = new ConsoleHandler(ConsoleFiles.load(HttpApi.class.getClassLoader()), draining);
        connections = new ConnectionLimits(settings.hardening().maxConnections(),
                settings.frontDoor().maxConnectionsPerAddress(), System::nanoTime);
        // Outermost first: the request id, metrics and the access log, then the front door (framing,
        // Host, Origin, the body time-out on every path), then the console's files, then the API.
        requestIds = new RequestIds(recorded(new FrontDoor(new HostNames(settings.host(), settings.frontDoor().hostNames()),
                settings.bodyTimeoutMs(), connections, console),
                metrics, settings.observability().accessLog(), authenticator), new SecureRandom());
        root = requestIds;
        host = settings.host();
        requestedPort = settings.port();
        undertowOptions = OptionMap.builder()
                .set(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, false)
                // Bodies are counted by RequestBodies, which answers 413 or 503; Undertow's own
                // limit (2 MiB by default) would drop the connection of any larger body, well
                // within limits.max-body-bytes, without an answer.
                .set(UndertowOptions.MAX_ENTITY_SIZE, Long.MAX_VALUE)
                .set(UndertowOptions.NO_REQUEST_TIMEOUT, settings.idleTimeoutMs())
                .set(UndertowOptions.REQUEST_PARSE_TIMEOUT, settings.headerTimeoutMs())
                .getMap();
        socketOptions = OptionMap.builder()
                .set(Options.WRITE_TIMEOUT, settings.idleTimeoutMs())
                // server.max-connections: at the limit the listener stops accepting, so a further
                // client waits in the kernel's accept queue (or is refused once that is full)
                // until a connection closes; each I/O thread takes its share of the limit. Before
                // that, ConnectionLimits closes idle connections to keep room.
                .set(Options.CONNECTION_HIGH_WATER, settings.hardening().maxConnections())
                .set(Options.CONNECTION_LOW_WATER, settings.hardening().maxConnections())
                .getMap();
    }

    /** The handler with metrics and the access log around it, or as it is when both are off. */
    private static HttpHandler recorded(HttpHandler handler, ServiceMetrics metrics,
                                                           boolean accessLog, Authenticator authenticator) {
        return metrics == null && !accessLog ? handler
                : new RequestTelemetry(handler, metrics, accessLog, authenticator);
    }

    /**
     * {@code status} is "ok" while the ledger has no problem and "degraded" while it has one (an
     * accepted loss of acknowledged events, derived files found wrong, writes stopped); each is a
     * sentence in {@code problems}. {@code loading} names what the start left to read in the
     * background (the tree's check, the search index's check, the gate's state); empty once everything is loaded.
     */
    private ObjectNode healthOf(Ledger ledger, CheckpointService checkpoints, SearchIndex index) {
        return health(ledger, checkpoints, gate, index);
    }

    private static ObjectNode health(Ledger ledger, CheckpointService checkpoints, Gate gate, SearchIndex index) {
        List<String> problems = new ArrayList<>(ledger.health().problems());
        problems.addAll(checkpoints.problems());
        ObjectNode o = Responses.MAPPER.createObjectNode()
                .put("status", problems.isEmpty() ? "ok" : "degraded")
                .put("tree_size", ledger.size())
                .put("writable", !ledger.failed());
        o.put("checkpoint_size", checkpoints.latest().map(c -> c.size()).orElse(-1L));
        ArrayNode list = o.putArray("problems");
        problems.forEach(list::add);
        // What is still being read after the start (src/site/operations.md#start-up); writes never wait for it.
        ArrayNode loading = o.putArray("loading");
        ledger.loading().forEach(loading::add);
        index.loading().forEach(loading::add);
        if (gate != null && !gate.loaded()) {
            loading.add("gate");
        }
        return o;
    }

    /** Every route of the API as {@code "METHOD path"} (for the OpenAPI test: each must be documented). */
    List<String> routes() {
        return router.routes();
    }

    /**
     * Reads the gate's state from the log and records {@code gate.policy-file} when it differs from the
     * active policy, then serves.
     *
     * @throws IOException when the log cannot be read
     * @throws IllegalArgumentException when the policy file cannot be read or is malformed (nothing is served)
     */
    public void start() throws IOException {
        gate.start();
        if (policyFile != null) {
            adoptPolicyFile();
        }
        streams.start();
        if (accessTrail != null) {
            accessTrail.start();
        }
        try {
            listener = Listener.start(host, requestedPort, WORKER_THREADS, root, undertowOptions, socketOptions,
                    connections, requestIds::next);
        } catch (BindException e) {
            // The last step of a start: the caller closes what is open, and the message names the address.
            throw new UncheckedIOException("cannot listen on " + host + ":" + requestedPort + ": " + e.getMessage()
                    + " (is another service using that port? set server.port)", e);
        }
    }

    private void adoptPolicyFile() throws IOException {
        JsonNode document;
        try {
            document = PolicyParser.readDocument(Files.readAllBytes(policyFile));
            gate.adoptFile(document).ifPresent(CompletableFuture::join);
        } catch (PolicyRejection e) {
            throw new IllegalArgumentException("gate.policy-file " + policyFile + ": " + e.getMessage());
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("gate.policy-file " + policyFile + " does not exist");
        }
    }

    /** The port actually bound (useful with port 0). */
    public int port() {
        return listener.port();
    }

    /** Request bytes that may be in flight at once (limits.max-in-flight-bytes, or the size chosen from the heap). */
    public long maxInFlightBytes() {
        return budget.capacity();
    }

    /** Requests taken in (their head read) and not yet answered. */
    public long requestsInFlight() {
        return draining.inFlight();
    }

    /** How long a stop waits for streams to end cleanly before closing their connections. */
    private static final long STREAMS_END_MILLIS = 2_000;

    /** Refuses new requests (503), ends every live stream, waits up to {@code waitMillis} for those in flight, then stops. */
    public void stop(long waitMillis) throws InterruptedException {
        try {
            draining.drain();
            streams.close(Math.min(waitMillis, STREAMS_END_MILLIS)); // streams never finish by themselves
            draining.awaitIdle(waitMillis);
            if (listener != null) {
                listener.stop();
            }
        } finally {
            if (accessTrail != null) {
                accessTrail.close(); // writes the last reads before the caller closes the ledger
            }
        }
        gate.close();
    }
}
