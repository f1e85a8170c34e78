package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code trailproof erase} (src/site/cli.md#erase): removes the content of events and keeps their
 * proof through {@code POST /v1/admin/erasures} (src/site/erasure.md#api). Asks the server first
 * how many events the selection names (a dry run) and erases only after the person at the terminal
 * answers {@code y} to a question that states that number, unless {@code --yes}.
 */
final class EraseCommand implements CliCommand {

    ClientOptions options;

    static final OptionSpec EVENTS = OptionSpec.text("ID", "An event to erase (repeatable, or "
            + "comma-separated; at most 10000).",
            "--event", "--event-id").split(",");
    List<String> events;

    static final OptionSpec AGENT_ID = OptionSpec.text("A", "Erase the events of this agent (narrowed by "
            + "--session-id, --since, --until).",
            "--agent-id", "--agent");
    String agentId;

    static final OptionSpec SESSION_ID = OptionSpec.text("S", "Only events of this session.",
            "--session-id", "--session");
    String sessionId;

    static final OptionSpec SINCE = OptionSpec.text("T", "Only events whose timestamp is at or after T (ISO 8601).",
            "--since");
    String since;

    static final OptionSpec UNTIL = OptionSpec.text("T", "Only events whose timestamp is before T (ISO 8601).",
            "--until");
    String until;

    static final OptionSpec QUERY = OptionSpec.text("Q", "Erase the events this search query finds (with "
            + "--agent-id, --session-id, --since, --until as filters).",
            "--query", "-q");
    String query;

    static final OptionSpec REASON = OptionSpec.text("TEXT", "Why (1 to 1024 characters); kept on the trail "
            + "with the erasure.",
            "--reason").required();
    String reason;

    static final OptionSpec FIELDS = OptionSpec.text("F", "Fields to remove (default: every client field "
            + "but agent_id).",
            "--fields").split(",");
    List<String> fields;

    static final OptionSpec YES = OptionSpec.flag("Do not ask for confirmation.",
            "--yes");
    boolean yes;

    static final OptionSpec DRY_RUN = OptionSpec.flag("Only say how many events would be erased; change nothing.",
            "--dry-run");
    boolean dryRun;

    /** Where the answer to the confirmation is read; the standard input unless a test gives another. */
    InputStream in = System.in;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("erase",
                "Erase the content of events, keeping their hash, chain links and Merkle proofs.")
                .option(EVENTS).option(AGENT_ID).option(SESSION_ID).option(SINCE).option(UNTIL).option(QUERY)
                .option(REASON).option(FIELDS).option(YES).option(DRY_RUN));
    }

    @Override
    public int run(Arguments args, Streams io) {
        options = ClientOptions.of(args);
        events = args.texts(EVENTS);
        agentId = args.text(AGENT_ID);
        sessionId = args.text(SESSION_ID);
        since = args.text(SINCE);
        until = args.text(UNTIL);
        query = args.text(QUERY);
        reason = args.text(REASON);
        fields = args.texts(FIELDS);
        yes = args.flag(YES);
        dryRun = args.flag(DRY_RUN);
        PrintWriter out = io.out();
        PrintWriter err = io.err();
        String usage = usageProblem();
        if (usage != null) {
            err.println("trailproof: " + usage);
            err.println("Try 'trailproof erase --help'.");
            err.flush();
            return Main.BAD_USAGE;
        }
        try {
            ServerClient client = options.client();
            ServerClient.Answer dry = client.post("/v1/admin/erasures", body(true));
            if (!dry.ok()) {
                return refused(dry, err);
            }
            long would = dry.json().path("would_erase").asLong();
            long already = dry.json().path("already_erased").asLong();
            if (dryRun) {
                out.println(options.json ? dry.text() : "would erase the content of " + events(would) + alsoAlready(already));
                out.flush();
                return 0;
            }
            if (would == 0) {
                // Most often a mistyped agent id or query: said as a failure, so that a script notices.
                err.println("trailproof: nothing to erase: the selection names no event whose content is still there"
                        + (already > 0 ? " (" + already + " already erased)" : "") + "; nothing was erased or recorded");
                err.flush();
                return 1;
            }
            if (!yes && !confirmed(would, already, err)) {
                err.println("trailproof: nothing was erased");
                err.flush();
                return 1;
            }
            ServerClient.Answer done = client.post("/v1/admin/erasures", body(false));
            if (!done.ok()) {
                return refused(done, err);
            }
            JsonNode r = done.json();
            if (options.json) {
                out.println(done.text());
            } else {
                out.println("erased the content of " + events(r.path("erased").asLong())
                        + alsoAlready(r.path("already_erased").asLong()) + ": erasure " + r.path("erasure_id").asText()
                        + " at log index " + r.path("log_index").asLong());
            }
            out.flush();
            return 0;
        } catch (ServerClient.ClientException e) {
            err.println("trailproof: " + e.getMessage() + (e.mayHaveArrived()
                    ? " (the erasure may have been done: see GET /v1/admin/erasures before trying again)" : ""));
            err.flush();
            return 1;
        }
    }

    /** The selection's faults the server would refuse too, said before any request. */
    private String usageProblem() {
        int selectors = (events != null ? 1 : 0) + (agentId != null && query == null ? 1 : 0) + (query != null ? 1 : 0);
        if (selectors != 1) {
            return "name exactly one of --event, --agent-id or --query";
        }
        if (events != null && (sessionId != null || since != null || until != null)) {
            return "--event takes no filters; --session-id, --since and --until go with --agent-id or --query";
        }
        if (reason.isBlank() || reason.length() > 1024) {
            return "--reason must be 1 to 1024 characters";
        }
        return null;
    }

    private byte[] body(boolean dry) {
        ObjectNode b = ServerClient.JSON.createObjectNode();
        if (events != null) {
            ArrayNode ids = b.putArray("event_ids");
            events.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(ids::add);
        }
        put(b, "agent_id", agentId);
        put(b, "session_id", sessionId);
        put(b, "since", since);
        put(b, "until", until);
        put(b, "q", query);
        if (fields != null) {
            ArrayNode f = b.putArray("fields");
            fields.stream().map(String::trim).filter(s -> !s.isEmpty()).forEach(f::add);
        }
        b.put("reason", reason);
        if (dry) {
            b.put("dry_run", true);
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void put(ObjectNode o, String key, String value) {
        if (value != null) {
            o.put(key, value);
        }
    }

    /** Asks on the error stream (the output stays the result) and reads one line: only y or yes erases. */
    private boolean confirmed(long would, long already, PrintWriter err) {
        List<String> named = fields == null ? List.of("every client field but agent_id") : new ArrayList<>(fields);
        err.println("This erases the content of " + events(would) + alsoAlready(already) + ": "
                + String.join(", ", named) + ".");
        err.println("Their hashes, chain links and Merkle proofs stay; the content cannot be brought back.");
        err.println("Reason recorded on the trail: " + reason);
        err.print("Erase the content of " + events(would) + "? [y/N] ");
        err.flush();
        try {
            String line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
            String a = line == null ? "" : line.trim().toLowerCase(Locale.ROOT);
            return a.equals("y") || a.equals("yes");
        } catch (IOException e) {
            return false;
        }
    }

    private static int refused(ServerClient.Answer a, PrintWriter err) {
        err.println("trailproof: " + a.error());
        err.flush();
        return a.status() == 400 ? Main.BAD_USAGE : 1;
    }

    private static String events(long n) {
        return n + (n == 1 ? " event" : " events");
    }

    private static String alsoAlready(long already) {
        return already > 0 ? " (" + already + " more already erased)" : "";
    }
}
