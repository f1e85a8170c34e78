package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * {@code trailproof tail [QUERY]}: prints events as they become durable (the live stream, src/site/live-stream.md),
 * one line each, and keeps going: after a dropped connection, a server restart or an overflow it
 * reconnects and resumes right after the last event it printed, and says so on standard error.
 */
final class TailCommand implements CliCommand {

    /** Longest wait between two reconnection attempts. */
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    ClientOptions client;

    static final ParameterSpec QUERY = ParameterSpec.optional(ValueType.TEXT, "QUERY",
            "Only events this search query matches (Lucene syntax, as in 'search').");
    String query;

    static final OptionSpec AGENT_ID = OptionSpec.text("A", "Only this agent.",
            "--agent-id");
    String agentId;

    static final OptionSpec ACTION_TYPE = OptionSpec.text("T", "Only this action type.",
            "--action-type");
    String actionType;

    static final OptionSpec LABELS = OptionSpec.value(ValueType.KEY_VALUE, "KEY=VALUE", "Exact label; "
            + "repeat for several (all must match).",
            "--label").repeatable();
    Map<String, String> labels;

    static final OptionSpec FROM = OptionSpec.value(ValueType.LONG, "N", "Start at this log index (default: "
            + "only new events).",
            "--from");
    Long from;

    static final OptionSpec COUNT = OptionSpec.value(ValueType.LONG, "N", "Exit after printing N events.",
            "--count");
    Long count;

    static final OptionSpec SILENCE_LIMIT = OptionSpec.value(ValueType.LONG, "SECONDS", "Reconnect when "
            + "nothing (not even a keep-alive, which the server sends every 15 s) arrives "
                    + "for this long: a connection that died without closing (default: 60).",
            "--silence-limit").defaultValue("60");
    long silenceLimit;

    private final PrintStream out = System.out;
    private final PrintStream err = System.err;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("tail", "Print events as they are stored, one line "
                + "each (or raw JSON with --json), until interrupted.",
                "After a dropped connection, a server restart or falling behind, it reconnects and resumes "
                        + "after the last "
                        + "event printed (never skipping or repeating one), and says so on standard error.")
                .parameter(QUERY).option(AGENT_ID).option(ACTION_TYPE).option(LABELS).option(FROM)
                .option(COUNT).option(SILENCE_LIMIT));
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        client = ClientOptions.of(args);
        query = args.text(QUERY);
        agentId = args.text(AGENT_ID);
        actionType = args.text(ACTION_TYPE);
        labels = args.map(LABELS);
        from = args.longValue(FROM);
        count = args.longValue(COUNT);
        silenceLimit = args.longValue(SILENCE_LIMIT);
        ServerClient server = client.client();
        Long next = from;
        long printed = 0;
        long backoff = 0;
        boolean resuming = false;
        while (true) {
            if (backoff > 0) {
                Thread.sleep(backoff);
            }
            try {
                if (next == null) {
                    next = treeSize(server); // so that a reconnection before the first event loses nothing
                }
                HttpResponse<InputStream> response = server.stream(ServerClient.path("/v1/stream", params(next)));
                try (InputStream body = response.body()) {
                    if (response.statusCode() != 200) {
                        ServerClient.Answer answer = new ServerClient.Answer(response.statusCode(), body.readAllBytes());
                        if (response.statusCode() != 503) {
                            err.println("trailproof: " + answer.error());
                            return response.statusCode() == 400 ? Main.BAD_USAGE : 1;
                        }
                        backoff = nextBackoff(backoff);
                        err.println("trailproof: " + answer.error() + "; retrying in " + backoff + " ms");
                        resuming = true;
                        continue;
                    }
                    if (resuming) {
                        err.println("trailproof: reconnected; resuming at log index " + next);
                        resuming = false;
                    }
                    backoff = 0;
                    Outcome outcome = read(body, next, printed);
                    next = outcome.next();
                    printed = outcome.printed();
                    if (outcome.done()) {
                        return 0;
                    }
                    if (outcome.overflowed()) {
                        err.println("trailproof: the server ended the stream because this reader fell behind; resuming at "
                                + "log index " + next);
                    } else {
                        backoff = nextBackoff(backoff);
                        err.println("trailproof: the stream ended (server stopped or connection dropped); reconnecting to "
                                + "resume at log index " + next);
                    }
                    resuming = true;
                }
            } catch (ServerClient.ClientException | IOException e) {
                backoff = nextBackoff(backoff);
                err.println("trailproof: " + e.getMessage() + "; retrying in " + backoff + " ms to resume at log index "
                        + (next == null ? "(current end)" : next));
                resuming = true;
            }
        }
    }

    private record Outcome(long next, long printed, boolean overflowed, boolean done) {
    }

    /**
     * Reads SSE blocks until the stream ends; prints each event and moves {@code next} past it. A
     * stream silent for {@link #silenceLimit} seconds is closed, which ends the read as a drop.
     */
    private Outcome read(InputStream body, long next, long printed) throws IOException {
        SilenceWatch watch = new SilenceWatch(body, Duration.ofSeconds(silenceLimit));
        try {
            return read(new BufferedReader(new InputStreamReader(watch, StandardCharsets.UTF_8)), next, printed);
        } catch (IOException e) {
            if (watch.tripped()) {
                return new Outcome(next, printed, false, false);
            }
            throw e;
        } finally {
            watch.stop();
        }
    }

    private Outcome read(BufferedReader lines, long next, long printed) throws IOException {
        String id = null;
        String event = null;
        String data = null;
        for (String line; (line = lines.readLine()) != null; ) {
            if (!line.isEmpty()) {
                if (line.startsWith("id:")) {
                    id = line.substring(3).strip();
                } else if (line.startsWith("event:")) {
                    event = line.substring(6).strip();
                } else if (line.startsWith("data:")) {
                    data = line.substring(line.startsWith("data: ") ? 6 : 5);
                }
                continue;
            }
            if ("event".equals(event) && id != null && data != null) {
                out.println(client.json ? data : line(ServerClient.JSON.readTree(data)));
                out.flush();
                next = Long.parseLong(id) + 1;
                printed++;
                if (count != null && printed >= count) {
                    return new Outcome(next, printed, false, true);
                }
            } else if ("overflow".equals(event) && data != null) {
                return new Outcome(ServerClient.JSON.readTree(data).path("resume_from").asLong(next), printed, true, false);
            }
            id = null;
            event = null;
            data = null;
        }
        return new Outcome(next, printed, false, false);
    }

    private Map<String, String> params(long next) {
        Map<String, String> q = ServerClient.query();
        q.put("q", query);
        q.put("agent_id", agentId);
        q.put("action_type", actionType);
        if (labels != null) {
            labels.forEach((k, v) -> q.put("label." + k, v));
        }
        q.put("from", Long.toString(next));
        return q;
    }

    private static long treeSize(ServerClient server) throws ServerClient.ClientException {
        ServerClient.Answer a = server.get("/v1/merkle/root");
        if (!a.ok()) {
            throw new ServerClient.ClientException(a.error());
        }
        return a.json().path("tree_size").asLong();
    }

    private static long nextBackoff(long backoff) {
        return Math.min(MAX_BACKOFF_MILLIS, backoff == 0 ? 250 : backoff * 2);
    }

    /** One event as a line: log index, timestamp, agent, sequence, action, status, id (like {@code search}). */
    static String line(JsonNode e) {
        String action = e.path("action_type").asText("");
        String name = e.path("action_name").asText("");
        action = action.isEmpty() ? name : name.isEmpty() ? action : action + " " + name;
        return String.format("%-8s %-27s %-24s %6s  %-40s %-10s %s", e.path("log_index").asText(), e.path("timestamp").asText(),
                cut(e.path("agent_id").asText(), 24), e.path("sequence").asText(), cut(action, 40),
                e.path("action_status").asText(""), e.path("id").asText()).replaceAll("\\s+$", "");
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
