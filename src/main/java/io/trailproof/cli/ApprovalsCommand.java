package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * {@code trailproof approvals list|approve ID|deny ID [--comment TEXT]} (src/site/cli.md#approvals):
 * the asks of the gate waiting for a person, and the answer to one, over {@code GET /v1/approvals}
 * and {@code POST /v1/approvals/{id}} (src/site/gates.md). The key needs the {@code approve} role;
 * the approval names the key by its configured name.
 */
final class ApprovalsCommand implements CliCommand {

    @Override
    public CommandSpec spec() {
        return new CommandSpec("approvals", "List the asks of the gate waiting for a person, approve or deny one.")
                .subcommand(new ListAsks()).subcommand(new Approve()).subcommand(new Deny());
    }

    @Override
    public int run(Arguments args, Streams io) {
        io.err().println("trailproof: name what to do: approvals list, approvals approve ID, or approvals deny ID");
        return Main.BAD_USAGE;
    }

    static final class ListAsks extends ServerCallCommand {
        @Override
        public CommandSpec spec() {
            return ClientOptions.declare(new CommandSpec("list", "The asks waiting for a person, oldest first."));
        }

        @Override
        ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException {
            return client.get("/v1/approvals?state=pending&limit=1000");
        }

        @Override
        void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException {
            JsonNode asks = answer.json();
            if (asks.isEmpty()) {
                out.println("no asks are waiting");
            }
            for (JsonNode ask : asks) {
                out.println(ask.path("decision_id").asText() + "  " + ask.path("agent_id").asText()
                        + (ask.hasNonNull("session_id") ? "/" + ask.path("session_id").asText() : "")
                        + "  " + ask.path("action_name").asText("(no action_name)") + " "
                        + ask.path("action_input").toString());
                out.println("    rule " + ask.path("rule").asText("-") + ": " + ask.path("reason").asText("")
                        + "; expires " + ask.path("expires_at").asText());
            }
        }
    }

    /** Approve and deny share everything but the answer. */
    abstract static class Answer extends ServerCallCommand {
        static final ParameterSpec ID = ParameterSpec.required(ValueType.TEXT, "ID", "The decision_id of the ask.");
        static final OptionSpec COMMENT = OptionSpec.text("TEXT", "Why (at most 1024 characters); kept on the trail.",
                "--comment");

        String id;
        String comment;

        /** Its spec: {@code name} and {@code summary}, with the options both answers take. */
        static CommandSpec answerCommand(String name, String summary) {
            return ClientOptions.declare(new CommandSpec(name, summary).parameter(ID).option(COMMENT));
        }

        @Override
        void read(Arguments args) {
            id = args.text(ID);
            comment = args.text(COMMENT);
        }

        abstract boolean approve();

        @Override
        ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException {
            ObjectNode body = ServerClient.JSON.createObjectNode().put("approve", approve());
            if (comment != null) {
                body.put("comment", comment);
            }
            return client.post("/v1/approvals/" + id, body.toString().getBytes(StandardCharsets.UTF_8));
        }

        @Override
        void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException {
            JsonNode r = answer.json();
            out.println((approve() ? "approved " : "denied ") + r.path("decision_id").asText() + " as "
                    + r.path("approver").asText() + (approve() ? ", valid until " + r.path("valid_until").asText() : "")
                    + " (event " + r.path("event").path("id").asText() + ")");
        }

        @Override
        String whereToLookIfItArrived() {
            return " (the answer may have been recorded: see trailproof approvals list)";
        }
    }

    static final class Approve extends Answer {
        @Override
        public CommandSpec spec() {
            return answerCommand("approve", "Approve a pending ask (good for one call).");
        }

        @Override
        boolean approve() {
            return true;
        }
    }

    static final class Deny extends Answer {
        @Override
        public CommandSpec spec() {
            return answerCommand("deny", "Deny a pending ask.");
        }

        @Override
        boolean approve() {
            return false;
        }
    }
}
