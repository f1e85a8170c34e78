package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEngine;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyRejection;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code trailproof policy check|test} (src/site/redaction.md). {@code check} asks a running server to run
 * the built-in policies or a document's, prints a table and exits 0 when nothing failed, 1 when a
 * rule of severity {@code fail} failed (or the server could not answer), 2 on a malformed document
 * or bad usage; a document is checked here first, so a malformed one never reaches the server.
 * {@code test} only validates a document, offline.
 */
final class PolicyCommand implements CliCommand {

    @Override
    public CommandSpec spec() {
        return new CommandSpec("policy", "Check the stored trail against policies (built-in ones, or a "
                + "YAML/JSON document).")
                .subcommand(new Check()).subcommand(new Test());
    }

    /** Without a subcommand: the help, on the error stream. */
    @Override
    public int run(Arguments args, Streams io) {
        io.err().print(HelpText.render(spec(), "trailproof policy"));
        return 0;
    }

    /** Reads and validates a document; the message for the user is in the exception. */
    static JsonNode readDocument(Path file) throws PolicyRejection {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new PolicyRejection("cannot read " + file + ": " + e.getMessage());
        }
        JsonNode policies = PolicyParser.documentPolicies(bytes);
        PolicyParser.parsePolicies(policies);
        return policies;
    }

    static final class Check extends ServerCallCommand {

        static final OptionSpec FILE = OptionSpec.value(ValueType.PATH, "F", "A policy document (YAML or "
                + "JSON); default: the built-in policies.",
                "--file");
        Path file;

        static final OptionSpec POLICY = OptionSpec.text("NAME", "Run only the policy of this name.",
                "--policy");
        String policy;

        static final OptionSpec AGENT_ID = OptionSpec.text("A", "Check only this agent's events.",
                "--agent-id");
        String agentId;

        static final OptionSpec SINCE = OptionSpec.text("T", "Only events whose timestamp is at or after T (ISO 8601).",
                "--since");
        String since;

        static final OptionSpec UNTIL = OptionSpec.text("T", "Only events whose timestamp is before T (ISO 8601).",
                "--until");
        String until;

        @Override
        public CommandSpec spec() {
            return ClientOptions.declare(new CommandSpec("check", "Run policies over the trail on the server; exit 0 "
                    + "when none failed, 1 when a 'fail' rule failed, 2 on a malformed document or bad usage.")
                    .option(FILE).option(POLICY).option(AGENT_ID).option(SINCE).option(UNTIL));
        }

        @Override
        void read(Arguments args) {
            file = args.path(FILE);
            policy = args.text(POLICY);
            agentId = args.text(AGENT_ID);
            since = args.text(SINCE);
            until = args.text(UNTIL);
        }

        @Override
        ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException, IOException, UsageException {
            ObjectNode body = ServerClient.JSON.createObjectNode();
            if (file != null) {
                try {
                    JsonNode policies = readDocument(file);
                    PolicyEngine.select(PolicyParser.parsePolicies(policies), policy);
                    body.set("policies", policies);
                } catch (PolicyRejection e) {
                    throw new UsageException(file + ": " + e.getMessage());
                }
            }
            body.put("policy", policy).put("agent_id", agentId).put("since", since).put("until", until);
            return client.post("/v1/policy/check", ServerClient.JSON.writeValueAsBytes(body));
        }

        @Override
        void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException {
            printTable(answer.json(), out);
        }

        /** 1 when a rule of severity fail failed, with or without --json. */
        @Override
        int exitCode(ServerClient.Answer answer) throws ServerClient.ClientException {
            return answer.json().path("passed").asBoolean(false) ? 0 : 1;
        }

        /** One row per rule, then each violated rule's examples, then the verdict. */
        static void printTable(JsonNode report, PrintWriter out) {
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[]{"POLICY", "RULE", "TYPE", "SEVERITY", "RESULT", "VIOLATIONS"});
            int failedFail = 0;
            for (JsonNode r : report.path("results")) {
                boolean passed = r.path("passed").asBoolean();
                if (!passed && r.path("severity").asText().equals("fail")) {
                    failedFail++;
                }
                rows.add(new String[]{r.path("policy").asText(), r.path("rule").asText(), r.path("type").asText(),
                        r.path("severity").asText(), passed ? "pass" : r.path("severity").asText().equals("fail")
                        ? "FAIL" : "warn", Long.toString(r.path("violations").asLong())});
            }
            int[] width = new int[6];
            for (String[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    width[i] = Math.max(width[i], row[i].length());
                }
            }
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < row.length; i++) {
                    line.append(i == row.length - 1 ? row[i] : String.format("%-" + (width[i] + 2) + "s", row[i]));
                }
                out.println(line);
            }
            for (JsonNode r : report.path("results")) {
                if (r.path("passed").asBoolean()) {
                    continue;
                }
                out.println();
                long shown = r.path("examples").size();
                long total = r.path("violations").asLong();
                out.println(r.path("policy").asText() + " / " + r.path("rule").asText() + ": " + total + " violation"
                        + (total == 1 ? "" : "s") + (shown < total ? ", the first " + shown : ""));
                for (JsonNode e : r.path("examples")) {
                    out.println("  agent " + e.path("agent_id").asText() + " seq " + e.path("sequence").asLong()
                            + " event " + e.path("event_id").asText() + ": " + e.path("message").asText());
                }
            }
            out.println();
            out.println((report.path("passed").asBoolean() ? "PASSED" : "FAILED: " + failedFail + " rule"
                    + (failedFail == 1 ? "" : "s") + " of severity fail violated") + " (" + report.path("events_checked")
                    .asLong() + " events checked)");
        }
    }

    static final class Test implements CliCommand {

        static final OptionSpec FILE = OptionSpec.value(ValueType.PATH, "F", "The policy document (YAML or JSON).",
                "--file").required();
        Path file;

        @Override
        public CommandSpec spec() {
            return new CommandSpec("test",
                    "Validate a policy document without running it; exit 0 when valid, 2 when malformed.").option(FILE);
        }

        @Override
        public int run(Arguments args, Streams io) {
            file = args.path(FILE);
            try {
                List<Policy> policies = PolicyParser.parsePolicies(readDocument(file));
                int rules = policies.stream().mapToInt(p -> p.rules().size()).sum();
                io.out().println(file + ": valid, " + policies.size() + " polic"
                        + (policies.size() == 1 ? "y" : "ies") + " with " + rules + " rule" + (rules == 1 ? "" : "s"));
                return 0;
            } catch (PolicyRejection e) {
                io.err().println("trailproof: " + file + ": " + e.getMessage());
                return Main.BAD_USAGE;
            }
        }
    }

}
