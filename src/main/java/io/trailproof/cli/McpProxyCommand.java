package io.trailproof.cli;

import io.trailproof.mcp.McpProxy;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code trailproof mcp-proxy [--server URL] [--api-key K] [--agent-id ID] [--gate [--ask-wait S]
 * [--gate-fail-mode closed|open]] -- COMMAND [ARGS...]}
 * (src/site/mcp-proxy.md): reads its settings and hands over to {@link McpProxy}. Standard input and
 * output are the MCP session's, used as raw bytes; the proxy's own messages go to standard error.
 */
final class McpProxyCommand implements CliCommand {

    static final String NAME = "mcp-proxy";
    /** The longest --ask-wait: a day (an ask expires on the service's side long before). */
    static final long MAX_ASK_WAIT_SECONDS = 86_400;

    RecorderOptions recorder;

    static final OptionSpec AGENT_ID = OptionSpec.text("ID", "Agent id of the events (default: "
            + "$TRAILPROOF_AGENT_ID, else mcp:<server name from initialize>).",
            "--agent-id");
    String agentId;

    static final OptionSpec GATE = OptionSpec.flag("Decide each tools/call with the trailproof gate before "
            + "forwarding it; "
            + "a refused call is answered with isError and never reaches the server.",
            "--gate");
    boolean gate;

    static final OptionSpec ASK_WAIT_SECONDS = OptionSpec.value(ValueType.LONG, "SECONDS", "With --gate: "
            + "how long a call waits for a person's approval before it is refused (default: 60).",
            "--ask-wait").defaultValue("60");
    long askWaitSeconds;

    static final OptionSpec GATE_FAIL_MODE = OptionSpec.text("closed|open", "With --gate, when trailproof "
            + "cannot be asked: closed refuses the call (default), "
                    + "open forwards it and records that the gate was unavailable.",
            "--gate-fail-mode").defaultValue("closed");
    String gateFailMode;

    static final ParameterSpec COMMAND = ParameterSpec.rest("COMMAND", "The MCP server command and its "
            + "arguments (after --).");
    List<String> command;

    private final Map<String, String> env;

    /** The MCP session's input and output: the process's own unless a workload gives others (StartCacheCommand). */
    InputStream in;
    OutputStream out;

    McpProxyCommand() {
        this(System.getenv());
    }

    McpProxyCommand(Map<String, String> env) {
        this.env = env;
    }

    @Override
    public CommandSpec spec() {
        return RecorderOptions.declare(new CommandSpec(NAME, "Run an MCP server (stdio) and record its tool "
                + "calls: every message passes through unchanged; "
                + "each tools/call becomes a TOOL_CALL event and its answer a TOOL_RESULT event.",
                "Exit code: the MCP server's (127 when it cannot be started, 2 for bad usage).")
                .option(AGENT_ID).option(GATE).option(ASK_WAIT_SECONDS).option(GATE_FAIL_MODE)
                .parameter(COMMAND).stopAtPositional());
    }

    @Override
    public int run(Arguments args, Streams io) throws InterruptedException {
        recorder = RecorderOptions.of(args);
        agentId = args.text(AGENT_ID);
        gate = args.flag(GATE);
        askWaitSeconds = args.longValue(ASK_WAIT_SECONDS);
        gateFailMode = args.text(GATE_FAIL_MODE);
        command = args.rest(COMMAND);
        RecordingTarget target = recorder.target(agentId, env, System.err);
        if (target == null) {
            return Main.BAD_USAGE;
        }
        if (askWaitSeconds < 0 || askWaitSeconds > MAX_ASK_WAIT_SECONDS) {
            System.err.println("trailproof: --ask-wait must be 0 to " + MAX_ASK_WAIT_SECONDS + " seconds");
            return Main.BAD_USAGE;
        }
        if (!"closed".equals(gateFailMode) && !"open".equals(gateFailMode)) {
            System.err.println("trailproof: --gate-fail-mode must be closed or open");
            return Main.BAD_USAGE;
        }
        McpProxy.Gate gating = new McpProxy.Gate(gate, Duration.ofSeconds(askWaitSeconds), "open".equals(gateFailMode));
        McpProxy.Options options = new McpProxy.Options(command, target.server(), target.apiKey(), target.agentId(),
                target.spoolDir(), target.recording(),
                Duration.ofSeconds(1), Duration.ofSeconds(5), gating);
        McpProxy proxy = new McpProxy(options, in != null ? in : new FileInputStream(FileDescriptor.in),
                out != null ? out : new FileOutputStream(FileDescriptor.out), System.err, Clock.systemUTC(),
                UUID.randomUUID().toString());
        Shutdown.forward(proxy::forward);
        return proxy.run();
    }
}
