package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.policy.PolicyParser;
import io.trailproof.core.policy.PolicyRejection;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code trailproof gate-policy put FILE|get} (src/site/cli.md#gate-policy): records a gate policy
 * document (YAML or JSON, checked here first with the server's own parser) through
 * {@code PUT /v1/admin/gate-policy}, or prints the active one (src/site/gates.md).
 */
final class GatePolicyCommand implements CliCommand {

    @Override
    public CommandSpec spec() {
        return new CommandSpec("gate-policy", "Record the gate policy (put FILE) or print the active one (get).")
                .subcommand(new Put()).subcommand(new Get());
    }

    @Override
    public int run(Arguments args, Streams io) {
        io.err().println("trailproof: name what to do: gate-policy put FILE, or gate-policy get");
        return Main.BAD_USAGE;
    }

    static final class Put extends ServerCallCommand {
        static final ParameterSpec FILE = ParameterSpec.required(ValueType.PATH, "FILE", "The policy document.");

        Path file;

        @Override
        public CommandSpec spec() {
            return ClientOptions.declare(new CommandSpec("put", "Record FILE (YAML or JSON) as the active gate policy.")
                    .parameter(FILE));
        }

        @Override
        void read(Arguments args) {
            file = args.path(FILE);
        }

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

    static final class Get extends ServerCallCommand {
        @Override
        public CommandSpec spec() {
            return ClientOptions.declare(new CommandSpec("get", "Print the active gate policy and its event id."));
        }

        @Override
        ServerClient.Answer send(ServerClient client) throws ServerClient.ClientException {
            return client.get("/v1/admin/gate-policy");
        }

        @Override
        void print(ServerClient.Answer answer, PrintWriter out) throws ServerClient.ClientException {
            ObjectNode o = (ObjectNode) answer.json();
            out.println("# active gate policy, event " + o.path("event_id").asText());
            out.println(PrettyJson.of(o.get("policy")));
        }
    }
}
