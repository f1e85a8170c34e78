package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code trailproof search QUERY}: full-text search of a running server (src/site/cli.md), as a readable table. */
@Command(name = "search", mixinStandardHelpOptions = true,
        description = "Search events with Lucene query syntax, e.g. 'error AND agent_id:agent-007'.")
final class SearchCommand implements Callable<Integer> {

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "QUERY", description = "Lucene classic query syntax; default field: all text.")
    String query;

    @Option(names = "--agent-id", description = "Only this agent.")
    String agentId;

    @Option(names = "--action-type", description = "Only this action type.")
    String actionType;

    @Option(names = "--since", description = "Event timestamp at or after (ISO 8601; no offset means UTC).")
    String since;

    @Option(names = "--until", description = "Event timestamp before (ISO 8601; no offset means UTC).")
    String until;

    @Option(names = "--label", paramLabel = "KEY=VALUE", description = "Exact label; repeat for several (all must match).")
    Map<String, String> labels;

    @Option(names = "--limit", description = "Results per page (default 100, at most 1000).")
    Integer limit;

    @Option(names = "--offset", description = "Results to skip.")
    Long offset;

    @Option(names = "--sort", description = "relevance (default), timestamp (oldest first) or -timestamp (newest first).")
    String sort;

    @Override
    public Integer call() throws Exception {
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
