package io.trailproof.cli;

import io.trailproof.config.ConfigKey;
import io.trailproof.config.Settings;
import io.trailproof.config.SettingsLoader;
import io.trailproof.server.TrailproofServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code trailproof start-cache} (src/site/operations.md#start-cache): the workload the launcher
 * records the JVM's ahead-of-time caches from. The launcher runs this command with
 * {@code -XX:AOTMode=record}; the JVM notes every class the workload loads and links, and the launcher
 * then has it create the two caches from that recording, so that every later command, the proxy and
 * the server load them from a cache instead of the jars. What the workload touches is what starts faster: every command's
 * parser and help, a bad usage, a server on an empty data directory in a temporary folder (its start, a batch, a
 * search, a verification, an export and its offline verification through the client commands, the
 * MCP proxy recording a short session with {@code cat} as its server) and
 * its clean stop. Nothing outside the temporary folder is read or written; run alone (without the
 * launcher) it is harmless and records nothing.
 */
final class StartCacheCommand implements CliCommand {

    /**
     * A few events of two agents, enough to run every step of the workload once, with what real events
     * hold (numbers with fractions and exponents: their canonical form has code of its own).
     */
    private static final String EVENTS = """
            {"agent_id":"start-cache","session_id":"s-1","action_type":"TOOL_CALL","action_name":"search_database","action_input":{"query":"quarterly revenue","limit":10},"labels":{"env":"training"},"metadata":{"model":"m-1","temperature":0.7,"top_p":1e-3}}
            {"agent_id":"start-cache","session_id":"s-1","action_type":"TOOL_RESULT","action_name":"search_database","action_status":"success","action_output":{"rows":42}}
            {"agent_id":"start-cache-2","action_type":"LLM_CALL","action_name":"chat","error_message":"timeout","timestamp":"2026-01-01T00:00:00Z"}
            """;

    /** An MCP session's first messages, one JSON-RPC message a line. */
    private static final String MCP_SESSION = """
            {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"start-cache","version":"1"}}}
            {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_database","arguments":{"query":"revenue"}}}
            """;

    @Override
    public CommandSpec spec() {
        return new CommandSpec("start-cache", "Record the JVM's start cache for the JDK the launcher runs (JDK 25 or "
                + "newer), so that every later command starts faster; the build does it once, run it again after "
                + "changing the JDK.");
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        Path work = Files.createTempDirectory("trailproof-start-cache");
        PrintWriter quiet = new PrintWriter(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
        List<String> failed = new ArrayList<>();
        // The commands print to the standard streams too: the workload's output is of no use to anyone.
        PrintStream out = System.out;
        PrintStream err = System.err;
        System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            Commands commands = new Commands();
            run(commands, quiet, failed, "--help");
            run(commands, quiet, failed, "--version");
            // Bad usage too: the parser's messages are part of a start.
            if (Main.run(commands, quiet, quiet, "verify-export") != Main.BAD_USAGE) {
                failed.add("verify-export without its file");
            }
            for (String command : Commands.NAMES) {
                if (!command.equals("start-cache")) {
                    run(commands, quiet, failed, command, "--help");
                }
            }
            Settings settings = SettingsLoader.load(Map.of(ConfigKey.DATA_DIR.key(), work.resolve("data").toString(),
                    ConfigKey.SERVER_PORT.key(), "0"), Map.of(), null, false, new ArrayList<>());
            try (TrailproofServer server = TrailproofServer.start(settings, Clock.systemUTC())) {
                String base = "http://127.0.0.1:" + server.port();
                Path events = Files.writeString(work.resolve("events.jsonl"), EVENTS);
                Path evidence = work.resolve("evidence.json");
                run(commands, quiet, failed, "ingest", events.toString(), "--server", base);
                run(commands, quiet, failed, "search", "revenue", "--server", base);
                run(commands, quiet, failed, "verify", "--agent-id", "start-cache", "--server", base);
                run(commands, quiet, failed, "export", "--agent-id", "start-cache", "-o", evidence.toString(),
                        "--server", base);
                run(commands, quiet, failed, "verify-export", evidence.toString());
                proxy(commands, work, base, quiet);
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
            delete(work);
        }
        if (!failed.isEmpty()) {
            System.err.println("trailproof: the start-cache workload failed at: " + String.join("; ", failed));
            return 1;
        }
        System.out.println("trailproof: start-cache workload done");
        return 0;
    }

    /**
     * The MCP proxy passing a session with {@code cat} as its server: an initialize and a tool call
     * forwarded and recorded. Its exit code is not checked: a machine without {@code cat} still records
     * the rest.
     */
    private static void proxy(Commands commands, Path work, String base, PrintWriter quiet) {
        McpProxyCommand proxy = new McpProxyCommand(Map.of("TRAILPROOF_SPOOL_DIR", work.resolve("spool").toString()));
        proxy.in = new ByteArrayInputStream(MCP_SESSION.getBytes(StandardCharsets.UTF_8));
        proxy.out = OutputStream.nullOutputStream();
        Commands withSession = new Commands() {
            @Override
            CliCommand create(String name) {
                return name.equals(McpProxyCommand.NAME) ? proxy : super.create(name);
            }
        };
        Main.run(withSession, quiet, quiet, McpProxyCommand.NAME, "--server", base, "--agent-id", "start-cache", "cat");
    }

    private static void run(Commands commands, PrintWriter quiet, List<String> failed, String... args) {
        if (Main.run(commands, quiet, quiet, args) != 0) {
            failed.add(String.join(" ", args));
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
