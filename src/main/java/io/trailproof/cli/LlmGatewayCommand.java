package io.trailproof.cli;

import io.trailproof.llmgateway.LlmGateway;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

/**
 * {@code trailproof llm-gateway --upstream URL [--listen HOST:PORT] [--server URL] [--api-key K]
 * [--agent-id ID]} (src/site/llm-gateway.md): reads its settings, starts {@link LlmGateway} and runs
 * until SIGTERM or SIGINT, then stops it and exits 0. Its own messages go to standard error.
 */
final class LlmGatewayCommand implements CliCommand {

    static final String DEFAULT_LISTEN = "127.0.0.1:7601";

    static final OptionSpec UPSTREAM = OptionSpec.text("URL", "Base URL of the model API, such as "
            + "https://api.openai.com or https://api.anthropic.com; "
                    + "a request's path and query are appended to it.",
            "--upstream").required();
    String upstream;

    static final OptionSpec LISTEN = OptionSpec.text("HOST:PORT",
            "Address to listen on (default: " + DEFAULT_LISTEN + "; port 0 picks a free one).",
            "--listen").defaultValue(DEFAULT_LISTEN);
    String listen;

    RecorderOptions recorder;

    static final OptionSpec AGENT_ID = OptionSpec.text("ID", "Agent id of calls without an "
            + "X-Trailproof-Agent header (default: $TRAILPROOF_AGENT_ID, "
                    + "else " + LlmGateway.DEFAULT_AGENT + ").",
            "--agent-id");
    String agentId;

    private final Map<String, String> env;

    LlmGatewayCommand() {
        this(System.getenv());
    }

    LlmGatewayCommand(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public CommandSpec spec() {
        return RecorderOptions.declare(new CommandSpec("llm-gateway", "Run a reverse proxy in front of an "
                + "OpenAI-compatible or Anthropic API and record each "
                + "call: every request and answer passes through unchanged, streamed answers chunk by chunk; "
                + "each call becomes an LLM_CALL event and its answer an LLM_RESULT event.",
                "Exit code: 0 after SIGTERM or SIGINT, 1 when it cannot listen, 2 for bad usage.")
                .option(UPSTREAM).option(LISTEN).option(AGENT_ID));
    }

    @Override
    public int run(Arguments args, Streams io) throws InterruptedException {
        recorder = RecorderOptions.of(args);
        upstream = args.text(UPSTREAM);
        listen = args.text(LISTEN);
        agentId = args.text(AGENT_ID);
        URI upstreamUri = RecordingTarget.httpUrl(upstream, "--upstream", System.err);
        InetSocketAddress address = address(listen);
        RecordingTarget target = recorder.target(agentId, env, System.err);
        if (upstreamUri == null || address == null || target == null) {
            return Main.BAD_USAGE;
        }
        boolean recording = target.recording();
        URI serverUri = target.server();
        LlmGateway.Options options = new LlmGateway.Options(upstreamUri, address, serverUri, target.apiKey(),
                target.agentId(), target.spoolDir(), recording, Duration.ofSeconds(1), Duration.ofSeconds(10));
        LlmGateway gateway;
        try {
            gateway = LlmGateway.start(options, System.err, Clock.systemUTC(), () -> UUID.randomUUID().toString());
        } catch (RuntimeException e) {
            System.err.println("trailproof: llm-gateway cannot listen on " + listen + ": " + e.getMessage());
            return 1;
        }
        CountDownLatch stop = new CountDownLatch(1);
        Shutdown.onTerminate(stop::countDown);
        System.err.println(LlmGateway.NOTICE_PREFIX + "listening on http://" + hostForUrl(address.getHostString()) + ":"
                + gateway.port() + ", passing calls to " + upstreamUri
                + (recording ? ", recording to " + serverUri : ", recording off (TRAILPROOF_ENABLED=false)"));
        System.err.flush();
        stop.await();
        gateway.close();
        return 0;
    }

    /** {@code HOST:PORT}, {@code [IPv6]:PORT} or {@code :PORT} (all addresses). */
    static InetSocketAddress address(String text) {
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon);
        String port = colon < 0 ? text : text.substring(colon + 1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (colon < 0 || p < 0 || p > 65535) {
            System.err.println("trailproof: --listen must be HOST:PORT with a port from 0 to 65535: " + text);
            return null;
        }
        return InetSocketAddress.createUnresolved(host.isEmpty() ? "0.0.0.0" : host, p);
    }

    private static String hostForUrl(String host) {
        return host.contains(":") ? "[" + host + "]" : host;
    }
}
