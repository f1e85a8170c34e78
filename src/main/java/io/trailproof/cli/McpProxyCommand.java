package io.trailproof.cli;

import io.trailproof.mcp.McpProxy;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * {@code trailproof mcp-proxy [--server URL] [--api-key K] [--agent-id ID] [--gate [--ask-wait S]
 * [--gate-fail-mode closed|open]] -- COMMAND [ARGS...]}
 * (src/site/mcp-proxy.md): reads its settings and hands over to {@link McpProxy}. Standard input and
 * output are the MCP session's, used as raw bytes; the proxy's own messages go to standard error.
 */
@Command(name = "mcp-proxy", mixinStandardHelpOptions = true,
        description = {"Run an MCP server (stdio) and record its tool calls: every message passes through unchanged; "
                + "each tools/call becomes a TOOL_CALL event and its answer a TOOL_RESULT event.",
                "Exit code: the MCP server's (127 when it cannot be started, 2 for bad usage)."})
final class McpProxyCommand implements Callable<Integer> {

    static final String NAME = "mcp-proxy";
    /** The longest --ask-wait: a day (an ask expires on the service's side long before). */
    static final long MAX_ASK_WAIT_SECONDS = 86_400;

    @Option(names = "--server", paramLabel = "URL",
            description = "trailproof server base URL (default: $TRAILPROOF_URL or " + ClientOptions.DEFAULT_SERVER + ").")
    String server;

    @Option(names = "--api-key", paramLabel = "KEY", description = "API key with the ingest role (default: $TRAILPROOF_API_KEY).")
    String apiKey;

    @Option(names = "--agent-id", paramLabel = "ID",
            description = "Agent id of the events (default: $TRAILPROOF_AGENT_ID, else mcp:<server name from initialize>).")
    String agentId;

    @Option(names = "--gate", description = "Decide each tools/call with the trailproof gate before forwarding it; "
            + "a refused call is answered with isError and never reaches the server.")
    boolean gate;

    @Option(names = "--ask-wait", paramLabel = "SECONDS", defaultValue = "60",
            description = "With --gate: how long a call waits for a person's approval before it is refused (default: 60).")
    long askWaitSeconds;

    @Option(names = "--gate-fail-mode", paramLabel = "closed|open", defaultValue = "closed",
            description = "With --gate, when trailproof cannot be asked: closed refuses the call (default), "
                    + "open forwards it and records that the gate was unavailable.")
    String gateFailMode;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The MCP server command and its arguments (after --).")
    List<String> command;

    private final Map<String, String> env;

    McpProxyCommand() {
        this(System.getenv());
    }

    McpProxyCommand(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public Integer call() throws InterruptedException {
        String url = server != null ? server : env.getOrDefault("TRAILPROOF_URL", ClientOptions.DEFAULT_SERVER);
        URI base;
        try {
            base = new URI(url);
            if (!("http".equals(base.getScheme()) || "https".equals(base.getScheme())) || base.getHost() == null) {
                throw new URISyntaxException(url, "not an http or https URL");
            }
        } catch (URISyntaxException e) {
            System.err.println("trailproof: --server must be an http or https URL: " + url);
            return Main.BAD_USAGE;
        }
        String agent = agentId != null ? agentId : env.get("TRAILPROOF_AGENT_ID");
        if (agent != null && agent.isEmpty()) {
            agent = null;
        }
        if (agent != null && (agent.length() > 256 || agent.codePoints().anyMatch(Character::isISOControl))) {
            System.err.println("trailproof: --agent-id must be 1 to 256 characters without control characters");
            return Main.BAD_USAGE;
        }
        String key = apiKey != null ? apiKey : env.get("TRAILPROOF_API_KEY");
        boolean recording = !"false".equalsIgnoreCase(env.getOrDefault("TRAILPROOF_ENABLED", "true").trim());
        if (askWaitSeconds < 0 || askWaitSeconds > MAX_ASK_WAIT_SECONDS) {
            System.err.println("trailproof: --ask-wait must be 0 to " + MAX_ASK_WAIT_SECONDS + " seconds");
            return Main.BAD_USAGE;
        }
        if (!"closed".equals(gateFailMode) && !"open".equals(gateFailMode)) {
            System.err.println("trailproof: --gate-fail-mode must be closed or open");
            return Main.BAD_USAGE;
        }
        McpProxy.Gate gating = new McpProxy.Gate(gate, Duration.ofSeconds(askWaitSeconds), "open".equals(gateFailMode));
        McpProxy.Options options = new McpProxy.Options(command, base, key, agent, spoolDir(env, url), recording,
                Duration.ofSeconds(1), Duration.ofSeconds(5), gating);
        McpProxy proxy = new McpProxy(options, new FileInputStream(FileDescriptor.in),
                new FileOutputStream(FileDescriptor.out), System.err, Clock.systemUTC(), UUID.randomUUID().toString());
        Shutdown.forward(proxy::forward);
        return proxy.run();
    }

    /**
     * The spool of one service: {@code TRAILPROOF_SPOOL_DIR}, else {@code ~/.trailproof/spool}, then the
     * service URL without trailing slashes, every run of characters other than letters, digits,
     * {@code .} and {@code -} made one {@code _} (at most 120 characters). The Python SDK names the
     * same directory for the same URL, so batches are never sent to another service than the one
     * they were meant for; each sends its own files ({@code .json} here, {@code .batch} there).
     */
    static Path spoolDir(Map<String, String> env, String url) {
        String dir = env.get("TRAILPROOF_SPOOL_DIR");
        Path root = dir != null && !dir.isBlank()
                ? Path.of(dir)
                : Path.of(System.getProperty("user.home"), ".trailproof", "spool");
        String name = url.replaceAll("/+$", "").replaceAll("[^A-Za-z0-9.-]+", "_");
        return root.resolve(name.length() > 120 ? name.substring(0, 120) : name);
    }
}
