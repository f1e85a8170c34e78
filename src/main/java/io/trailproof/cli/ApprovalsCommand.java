package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * {@code trailproof approvals list|approve ID|deny ID [--comment TEXT]} (src/site/cli.md#approvals):
 * the asks of the gate waiting for a person, and the answer to one, over {@code GET /v1/approvals}
 * and {@code POST /v1/approvals/{id}} (src/site/gates.md). The key needs the {@code approve} role;
 * the approval names the key by its configured name.
 */
@Command(name = "approvals", mixinStandardHelpOptions = true,
        description = "List the asks of the gate waiting for a person, approve or deny one.",
        subcommands = {ApprovalsCommand.ListAsks.class, ApprovalsCommand.Approve.class, ApprovalsCommand.Deny.class})
final class ApprovalsCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("trailproof: name what to do: approvals list, approvals approve ID, "
                + "or approvals deny ID");
        spec.commandLine().getErr().flush();
        return Main.BAD_USAGE;
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The asks waiting for a person, oldest first.")
    static final class ListAsks extends ServerCallCommand {
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
        @Parameters(index = "0", paramLabel = "ID", description = "The decision_id of the ask.")
        String id;

        @Option(names = "--comment", paramLabel = "TEXT", description = "Why (at most 1024 characters); kept on the trail.")
        String comment;

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

    @Command(name = "approve", mixinStandardHelpOptions = true, description = "Approve a pending ask (good for one call).")
    static final class Approve extends Answer {
        @Override
        boolean approve() {
            return true;
        }
    }

    @Command(name = "deny", mixinStandardHelpOptions = true, description = "Deny a pending ask.")
    static final class Deny extends Answer {
        @Override
        boolean approve() {
            return false;
        }
    }
}
