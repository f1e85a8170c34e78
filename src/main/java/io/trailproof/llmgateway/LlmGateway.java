package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.shipping.BatchSender;
import io.trailproof.shipping.EventShipper;
import io.trailproof.shipping.Notices;
import io.trailproof.shipping.Spool;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.DefaultByteBufferPool;
import io.undertow.server.handlers.GracefulShutdownHandler;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * {@code trailproof llm-gateway}: a reverse proxy in front of an OpenAI-compatible or Anthropic API
 * that records each call it passes through (src/site/llm-gateway.md). Calls go through
 * {@link GatewayHandler}; {@link CallRecorder} makes their events; the shared capture shipper sends
 * them in the background, through the spool when the service is away.
 */
public final class LlmGateway implements AutoCloseable {

    /** Starts each of the gateway's own lines on standard error. */
    public static final String NOTICE_PREFIX = "trailproof llm-gateway: ";
    /** The agent of calls without an {@code X-Trailproof-Agent} header when no default was given. */
    public static final String DEFAULT_AGENT = "llm-gateway";

    private static final EventShipper.Origin ORIGIN = new EventShipper.Origin(CallRecorder.PATH,
            "calls to the model go on");
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Longest a client may take to send a request's headers, and an idle connection may stay open. */
    private static final int PARSE_TIMEOUT_MS = 30_000;
    private static final int IDLE_TIMEOUT_MS = 120_000;
    /** Undertow's own buffer size for a heap over 128 MB. */
    private static final int BUFFER_BYTES = 16 * 1024;
    /** Buffers kept for reuse: enough for the reads and writes of many calls at once. */
    private static final int POOLED_BUFFERS = 1024;

    /**
     * What to serve and where to record.
     *
     * @param upstream the model API's base URL
     * @param listen the address the gateway listens on
     * @param server the trailproof server's base URL
     * @param apiKey the trailproof API key (ingest role), or null
     * @param agentId the agent of calls without an {@code X-Trailproof-Agent} header, or null for
     *        {@value #DEFAULT_AGENT}
     * @param spoolDir where unsent batches are kept
     * @param recording false to pass through only
     * @param flushInterval longest time an event waits for its batch to fill
     * @param stopGrace how long stopping waits for calls in flight, then for the last batches
     */
    public record Options(URI upstream, InetSocketAddress listen, URI server, String apiKey, String agentId,
            Path spoolDir, boolean recording, Duration flushInterval, Duration stopGrace) {
        public Options {
            Objects.requireNonNull(upstream);
            Objects.requireNonNull(listen);
            Objects.requireNonNull(server);
            Objects.requireNonNull(spoolDir);
        }
    }

    private final Options options;
    private final Undertow undertow;
    private final DefaultByteBufferPool buffers = new DefaultByteBufferPool(true, BUFFER_BYTES, POOLED_BUFFERS, 0);
    private final GracefulShutdownHandler graceful;
    private final ExecutorService calls;
    private final UpstreamClient upstream;
    private final InFlight inFlight = new InFlight();
    private final EventShipper shipper;
    private final CallRecorder recorder;

    private LlmGateway(Options options, PrintStream err, Clock clock, Supplier<String> ids) {
        this.options = options;
        Notices notices = new Notices(err, NOTICE_PREFIX);
        ObjectMapper json = new ObjectMapper();
        if (options.recording()) {
            shipper = new EventShipper(new BatchSender(options.server(), options.apiKey(), Duration.ofSeconds(10), json),
                    new Spool(options.spoolDir(), json), ORIGIN, ids.get(), clock, options.flushInterval(), notices,
                    json);
            recorder = new CallRecorder(new CaptureStreams(ids), shipper::submitAll, clock, notices);
        } else {
            shipper = null;
            recorder = null;
        }
        // Platform threads, kept for reuse while calls come: a call's thread blocked reading the
        // upstream's answer is woken by the kernel itself. A virtual thread is woken through the JDK's
        // pollers and a carrier thread, two or three more threads made runnable for every call on
        // cores the agent is using; a call waiting for a model holds its thread either way.
        calls = Executors.newCachedThreadPool(Thread.ofPlatform().daemon(true).name("trailproof-llm-call-", 0).factory());
        upstream = new UpstreamClient(options.upstream(), CONNECT_TIMEOUT);
        String agent = options.agentId() != null ? options.agentId() : DEFAULT_AGENT;
        graceful = new GracefulShutdownHandler(
                new GatewayHandler(options.upstream(), upstream, recorder, agent, clock, calls, inFlight));
        undertow = Undertow.builder()
                .addHttpListener(options.listen().getPort(), options.listen().getHostString())
                .setIoThreads(Math.max(2, Runtime.getRuntime().availableProcessors()))
                .setWorkerThreads(2) // calls run on the gateway's own threads; the worker pool is not used
                // Without a per-thread cache: one shared pool serves every call's reads and writes,
                // whichever thread runs the call and however short-lived it is, so no call allocates a
                // zeroed 16 KiB of direct memory (freed only by the garbage collector) for its buffers.
                .setByteBufferPool(buffers)
                .setServerOption(UndertowOptions.ALWAYS_SET_DATE, false)
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, PARSE_TIMEOUT_MS)
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, IDLE_TIMEOUT_MS)
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, (long) GatewayHandler.MAX_REQUEST_BYTES + 1)
                .setHandler(graceful)
                .build();
    }

    /**
     * Starts listening.
     *
     * @param ids makes unique ids (this run's, each agent's {@code capture_id})
     */
    public static LlmGateway start(Options options, PrintStream err, Clock clock, Supplier<String> ids) {
        LlmGateway gateway = new LlmGateway(options, err, clock, ids);
        if (gateway.shipper != null) {
            gateway.shipper.start();
            gateway.recorder.start();
        }
        gateway.undertow.start();
        return gateway;
    }

    /** The port the gateway listens on (the one chosen when 0 was asked). */
    public int port() {
        return ((InetSocketAddress) undertow.getListenerInfo().get(0).getAddress()).getPort();
    }

    /**
     * Stops: takes no new call, waits up to the grace for the calls in flight, breaks off the rest,
     * records a {@code CAPTURE_END} for each agent, and tries to send what is left for up to the
     * grace again; the rest stays in the spool for the next run.
     */
    @Override
    public void close() throws InterruptedException {
        graceful.shutdown();
        graceful.awaitShutdown(options.stopGrace().toMillis());
        undertow.stop();
        calls.shutdownNow();
        upstream.close(); // breaks off the calls still reading an answer
        inFlight.awaitNone(options.stopGrace());
        buffers.close();
        if (recorder != null) {
            recorder.close();
            shipper.close(options.stopGrace());
        }
    }
}
