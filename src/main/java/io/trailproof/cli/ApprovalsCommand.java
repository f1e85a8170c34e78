package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
    static final class ListAsks implements Callable<Integer> {
        @Mixin
        ClientOptions options;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try {
                ServerClient.Answer a = options.client().get("/v1/approvals?state=pending&limit=1000");
                if (!a.ok()) {
                    return refused(a, err);
                }
                if (options.json) {
                    out.println(a.text());
                } else {
                    JsonNode asks = a.json();
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
                out.flush();
                return 0;
            } catch (ServerClient.ClientException e) {
                err.println("trailproof: " + e.getMessage());
                err.flush();
                return 1;
            }
        }
    }

    /** Approve and deny share everything but the answer. */
    abstract static class Answer implements Callable<Integer> {
        @Mixin
        ClientOptions options;

        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "ID", description = "The decision_id of the ask.")
        String id;

        @Option(names = "--comment", paramLabel = "TEXT", description = "Why (at most 1024 characters); kept on the trail.")
        String comment;

        abstract boolean approve();

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            ObjectNode body = ServerClient.JSON.createObjectNode().put("approve", approve());
            if (comment != null) {
                body.put("comment", comment);
            }
            try {
                ServerClient.Answer a = options.client().post("/v1/approvals/" + id,
                        body.toString().getBytes(StandardCharsets.UTF_8));
                if (!a.ok()) {
                    return refused(a, err);
                }
                JsonNode r = a.json();
                if (options.json) {
                    out.println(a.text());
                } else {
                    out.println((approve() ? "approved " : "denied ") + r.path("decision_id").asText() + " as "
                            + r.path("approver").asText() + (approve() ? ", valid until " + r.path("valid_until").asText() : "")
                            + " (event " + r.path("event").path("id").asText() + ")");
                }
                out.flush();
                return 0;
            } catch (ServerClient.ClientException e) {
                err.println("trailproof: " + e.getMessage() + (e.mayHaveArrived()
                        ? " (the answer may have been recorded: see trailproof approvals list)" : ""));
                err.flush();
                return 1;
            }
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

    static int refused(ServerClient.Answer a, PrintWriter err) {
        err.println("trailproof: " + a.error());
        err.flush();
        return a.status() == 400 ? Main.BAD_USAGE : 1;
    }
}
