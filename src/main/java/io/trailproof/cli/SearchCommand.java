package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** {@code trailproof search QUERY}: full-text search of a running server (src/site/cli.md), as a readable table. */
final class SearchCommand implements CliCommand {

    ClientOptions client;

    static final ParameterSpec QUERY = ParameterSpec.required(ValueType.TEXT, "QUERY",
            "Lucene classic query syntax; default field: all text.");
    String query;

    static final OptionSpec AGENT_ID = OptionSpec.text("A", "Only this agent.",
            "--agent-id");
    String agentId;

    static final OptionSpec ACTION_TYPE = OptionSpec.text("T", "Only this action type.",
            "--action-type");
    String actionType;

    static final OptionSpec SINCE = OptionSpec.text("T", "Event timestamp at or after (ISO 8601; no "
            + "offset means UTC).",
            "--since");
    String since;

    static final OptionSpec UNTIL = OptionSpec.text("T", "Event timestamp before (ISO 8601; no offset means UTC).",
            "--until");
    String until;

    static final OptionSpec LABELS = OptionSpec.value(ValueType.KEY_VALUE, "KEY=VALUE", "Exact label; "
            + "repeat for several (all must match).",
            "--label").repeatable();
    Map<String, String> labels;

    static final OptionSpec LIMIT = OptionSpec.value(ValueType.INT, "N", "Results per page (default "
            + "100, at most 1000).",
            "--limit");
    Integer limit;

    static final OptionSpec OFFSET = OptionSpec.value(ValueType.LONG, "N", "Results to skip.",
            "--offset");
    Long offset;

    static final OptionSpec SORT = OptionSpec.text("relevance|timestamp|-timestamp", "relevance (default), timestamp (oldest first) "
            + "or -timestamp (newest first).",
            "--sort");
    String sort;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("search", "Search events with Lucene query syntax, "
                + "e.g. 'error AND agent_id:agent-007'.")
                .parameter(QUERY).option(AGENT_ID).option(ACTION_TYPE).option(SINCE).option(UNTIL)
                .option(LABELS).option(LIMIT).option(OFFSET).option(SORT));
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        client = ClientOptions.of(args);
        query = args.text(QUERY);
        agentId = args.text(AGENT_ID);
        actionType = args.text(ACTION_TYPE);
        since = args.text(SINCE);
        until = args.text(UNTIL);
        labels = args.map(LABELS);
        limit = args.integer(LIMIT);
        offset = args.longValue(OFFSET);
        sort = args.text(SORT);
        Map<String, String> q = ServerClient.query();
        q.put("q", query);
        q.put("agent_id", agentId);
        q.put("action_type", actionType);
        q.put("since", since);
        q.put("until", until);
        if (labels != null) {
            labels.forEach((k, v) -> q.put("label." + k, v));
        }
        q.put("limit", limit == null ? null : limit.toString());
        q.put("offset", offset == null ? null : offset.toString());
        q.put("sort", sort);
        ServerClient.Answer answer;
        try {
            answer = client.client().get(ServerClient.path("/v1/search", q));
        } catch (ServerClient.ClientException e) {
            System.err.println("trailproof: " + e.getMessage());
            return 1;
        }
        if (!answer.ok()) {
            System.err.println("trailproof: " + answer.error());
            return answer.status() == 400 ? Main.BAD_USAGE : 1;
        }
        if (client.json) {
            System.out.println(answer.text());
            return 0;
        }
        JsonNode body = answer.json();
        System.out.print(table(body));
        return 0;
    }

    /** The results as aligned columns, then one line per highlighted field, and a summary line. */
    static String table(JsonNode body) {
        StringBuilder out = new StringBuilder();
        JsonNode results = body.path("results");
        List<String> header = List.of("TIMESTAMP", "AGENT", "SEQ", "ACTION", "STATUS", "SCORE", "ID");
        int[] width = header.stream().mapToInt(String::length).toArray();
        String[][] rows = new String[results.size()][];
        for (int i = 0; i < results.size(); i++) {
            JsonNode r = results.get(i);
            String action = join(r.path("action_type").asText(""), r.path("action_name").asText(""));
            rows[i] = new String[] {r.path("timestamp").asText(), cut(r.path("agent_id").asText(), 24),
                    r.path("sequence").asText(), cut(action, 40), r.path("action_status").asText(""),
                    String.format("%.2f", r.path("score").asDouble()), r.path("id").asText()};
            for (int c = 0; c < width.length; c++) {
                width[c] = Math.max(width[c], rows[i][c].length());
            }
        }
        appendRow(out, header.toArray(String[]::new), width);
        for (int i = 0; i < rows.length; i++) {
            appendRow(out, rows[i], width);
            JsonNode hl = results.get(i).path("highlights");
            for (Iterator<Map.Entry<String, JsonNode>> it = hl.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                for (JsonNode fragment : f.getValue()) {
                    out.append("    ").append(f.getKey()).append(": ")
                            .append(terminal(fragment.asText())).append('\n');
                }
            }
        }
        long total = body.path("total").asLong();
        long offset = body.path("offset").asLong();
        out.append(String.format("%,d result(s)", total));
        if (results.size() > 0) {
            out.append(String.format(", showing %,d-%,d", offset + 1, offset + results.size()));
        }
        if (offset + results.size() < total) {
            out.append(" (--offset ").append(offset + results.size()).append(" for more)");
        }
        return out.append('\n').toString();
    }

    private static void appendRow(StringBuilder out, String[] cells, int[] width) {
        for (int c = 0; c < cells.length; c++) {
            out.append(c == cells.length - 1 ? cells[c] : String.format("%-" + width[c] + "s  ", cells[c]));
        }
        out.append('\n');
    }

    /** A highlight fragment for a terminal: matches in [brackets], HTML entities decoded, one line. */
    static String terminal(String fragment) {
        return fragment.replace("<em>", "[").replace("</em>", "]").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
                .replaceAll("\\s+", " ").trim();
    }

    private static String join(String a, String b) {
        return a.isEmpty() ? b : b.isEmpty() ? a : a + " " + b;
    }

    private static String cut(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max - 1) + "…";
    }
}
