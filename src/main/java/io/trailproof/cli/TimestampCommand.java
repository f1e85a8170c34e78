package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

import java.io.PrintWriter;
import java.util.Iterator;
import java.util.Map;

/**
 * {@code trailproof timestamp}: asks the running server to timestamp its current Merkle root
 * ({@code POST /v1/timestamp}), or lists the stored timestamps ({@code --list}), or verifies the latest
 * one against the current log ({@code --verify}). Exit 0 on success or valid, 1 on failure or invalid.
 */
final class TimestampCommand implements CliCommand {

    ClientOptions client;

    static final OptionSpec TSA_URL = OptionSpec.text("URL", "TSA to use (default: the server's "
            + "timestamp.default-tsa-url).",
            "--tsa-url");
    String tsaUrl;

    static final OptionSpec LIST = OptionSpec.flag("List the stored timestamps, newest first.",
            "--list");
    boolean list;

    static final OptionSpec VERIFY = OptionSpec.flag("Verify the latest timestamp against the current log.",
            "--verify");
    boolean verify;

    static final OptionSpec LIMIT = OptionSpec.value(ValueType.INT, "N", "With --list: at most N timestamps "
            + "(default 100).",
            "--limit");
    Integer limit;

    static final OptionSpec OFFSET = OptionSpec.value(ValueType.INT, "N", "With --list: skip the N newest.",
            "--offset");
    Integer offset;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("timestamp", "Timestamp the server's current Merkle "
                + "root with an RFC 3161 TSA, or list (--list) or "
                + "verify (--verify) the stored timestamps.")
                .option(TSA_URL).option(LIST).option(VERIFY).option(LIMIT).option(OFFSET));
    }

    @Override
    public int run(Arguments args, Streams io) throws UsageError {
        client = ClientOptions.of(args);
        tsaUrl = args.text(TSA_URL);
        list = args.flag(LIST);
        verify = args.flag(VERIFY);
        limit = args.integer(LIMIT);
        offset = args.integer(OFFSET);
        if (list && verify) {
            throw new UsageError("--list and --verify cannot be combined");
        }
        if (tsaUrl != null && (list || verify)) {
            throw new UsageError("--tsa-url only applies when timestamping");
        }
        if ((limit != null || offset != null) && !list) {
            throw new UsageError("--limit and --offset only apply to --list");
        }
        PrintWriter out = io.out();
        PrintWriter err = io.err();
        try {
            ServerClient server = client.client();
            ServerClient.Answer answer;
            if (list) {
                Map<String, String> q = ServerClient.query();
                q.put("limit", limit == null ? null : limit.toString());
                q.put("offset", offset == null ? null : offset.toString());
                answer = server.get(ServerClient.path("/v1/timestamps", q));
            } else if (verify) {
                answer = server.get("/v1/timestamps/verify");
            } else {
                ObjectNode body = ServerClient.JSON.createObjectNode();
                if (tsaUrl != null) {
                    body.put("tsa_url", tsaUrl);
                }
                answer = server.post("/v1/timestamp", ServerClient.JSON.writeValueAsBytes(body));
            }
            if (verify && answer.status() == 404) {
                // The server's sentence names its API; a CLI user is told the command instead.
                err.println("trailproof: nothing has been timestamped yet: run 'trailproof timestamp' first");
                return 1;
            }
            if (!answer.ok()) {
                err.println("trailproof: " + answer.error());
                return 1;
            }
            JsonNode json = answer.json();
            if (client.json) {
                out.println(answer.text());
            } else if (list) {
                printList(out, json);
            } else if (verify) {
                printVerification(out, json);
            } else {
                printRecord(out, json);
            }
            out.flush();
            return verify && !json.path("valid").asBoolean(false) ? 1 : 0;
        } catch (ServerClient.ClientException | IOException e) {
            err.println("trailproof: " + e.getMessage());
            return 1;
        }
    }

    private static void printRecord(PrintWriter out, JsonNode r) {
        out.println("Timestamped tree size " + r.path("tree_size").asLong() + ", root " + r.path("merkle_root").asText());
        out.println("  TSA         " + r.path("tsa").asText() + " (" + r.path("tsa_url").asText() + ")");
        out.println("  TSA time    " + r.path("timestamp").asText());
        out.println("  serial      " + r.path("serial_number").asText() + ", policy " + r.path("policy").asText());
        out.println("  id          " + r.path("id").asText());
        out.println("  certificates " + r.path("certificates").size() + " (signer first)");
    }

    private static void printList(PrintWriter out, JsonNode records) {
        if (records.isEmpty()) {
            out.println("No timestamps yet. Run 'trailproof timestamp' to timestamp the current root.");
            return;
        }
        out.printf("%-30s  %10s  %-16s  %-24s  %s%n", "TSA TIME", "TREE SIZE", "ROOT", "TSA", "ID");
        for (JsonNode r : records) {
            String root = r.path("merkle_root").asText();
            out.printf("%-30s  %10d  %-16s  %-24s  %s%n", r.path("timestamp").asText(), r.path("tree_size").asLong(),
                    root.length() > 16 ? root.substring(0, 16) : root, r.path("tsa").asText(), r.path("id").asText());
        }
    }

    private static void printVerification(PrintWriter out, JsonNode v) {
        boolean valid = v.path("valid").asBoolean(false);
        long stamped = v.path("tree_size").asLong();
        long current = v.path("current_tree_size").asLong();
        if (valid) {
            out.println("VALID: the log's first " + stamped + " events (root " + v.path("merkle_root").asText()
                    + ") existed no later than " + v.path("tsa_time").asText() + " (TSA "
                    + v.path("tsa_name").asText(v.path("tsa").asText()) + ")");
        } else {
            out.println("INVALID: " + v.path("error").asText());
        }
        JsonNode checks = v.path("checks");
        for (Iterator<Map.Entry<String, JsonNode>> it = checks.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> c = it.next();
            out.printf("  %-18s %s%n", c.getKey(), c.getValue().asBoolean() ? "ok" : "FAILED");
        }
        if (v.path("current_root_matches").asBoolean()) {
            out.println("  the current root is the stamped root (no events since)");
        } else if (v.path("consistent").asBoolean()) {
            long newer = current - stamped;
            out.println("  the current tree (size " + current + ") extends the stamped one; the " + newer
                    + (newer == 1 ? " newer event is" : " newer events are") + " not covered by this timestamp");
        }
        if (!valid && v.hasNonNull("expected")) {
            out.println("  expected: " + v.path("expected").asText());
            out.println("  actual:   " + v.path("actual").asText());
        }
        if ("certificate_chain".equals(v.path("check").asText())) {
            out.println("  if you trust this TSA, add its root certificate (PEM) to timestamp.trust-anchors on the server");
        }
        out.println("  timestamp id " + v.path("timestamp_id").asText());
    }
}
