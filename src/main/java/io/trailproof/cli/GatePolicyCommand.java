package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyRejection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code trailproof gate-policy put FILE|get} (src/site/cli.md#gate-policy): records a gate policy
 * document (YAML or JSON, checked here first with the server's own parser) through
 * {@code PUT /v1/admin/gate-policy}, or prints the active one (src/site/gates.md).
 */
@Command(name = "gate-policy", mixinStandardHelpOptions = true,
        description = "Record the gate policy (put FILE) or print the active one (get).",
        subcommands = {GatePolicyCommand.Put.class, GatePolicyCommand.Get.class})
final class GatePolicyCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getErr().println("trailproof: name what to do: gate-policy put FILE, or gate-policy get");
        spec.commandLine().getErr().flush();
        return Main.BAD_USAGE;
    }

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Record FILE (YAML or JSON) as the active gate policy.")
    static final class Put extends ServerCallCommand {
        @Parameters(index = "0", paramLabel = "FILE", description = "The policy document.")
        Path file;

        @Override
        ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException, IOException, UsageException {
            JsonNode document;
            try {
                document = PolicyParser.readDocument(Files.readAllBytes(file));
            } catch (IOException e) {
                throw new UsageException("cannot read " + file + ": " + e.getMessage());
            } catch (PolicyRejection e) {
                throw new UsageException(file + ": " + e.getMessage());
            }
            return client.put("/v1/admin/gate-policy", ServerClient.JSON.writeValueAsBytes(document));
        }

        @Override
        void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException {
            out.println("recorded the gate policy as event " + answer.json().path("event_id").asText() + "; it is active");
        }
    }

    @Command(name = "get", mixinStandardHelpOptions = true, description = "Print the active gate policy and its event id.")
    static final class Get extends ServerCallCommand {
        @Override
        ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException {
            return client.get("/v1/admin/gate-policy");
        }

        @Override
        void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException {
            ObjectNode o = (ObjectNode) answer.json();
            out.println("# active gate policy, event " + o.path("event_id").asText());
            out.println(o.get("policy").toPrettyString());
        }
    }
}
