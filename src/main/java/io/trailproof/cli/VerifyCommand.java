package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/** {@code trailproof verify}: asks the server to re-verify one agent's chain from disk ({@code GET /v1/verify}). */
final class VerifyCommand implements CliCommand {

    ClientOptions options;

    static final OptionSpec AGENT_ID = OptionSpec.text("A", "The agent whose chain to verify.",
            "--agent-id").required();
    String agentId;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("verify", "Re-verify an agent's chain on the server: "
                + "every hash, link, sequence and Merkle leaf.")
                .option(AGENT_ID));
    }

    @Override
    public int run(Arguments args, Streams io) {
        options = ClientOptions.of(args);
        agentId = args.text(AGENT_ID);
        ServerClient.Answer answer;
        try {
            Map<String, String> query = ServerClient.query();
            query.put("agent_id", agentId);
            answer = options.client().get(ServerClient.path("/v1/verify", query));
            if (!answer.ok()) {
                System.err.println("trailproof: " + answer.error());
                return answer.status() == 400 ? Main.BAD_USAGE : 1;
            }
            JsonNode r = answer.json();
            boolean valid = r.path("valid").asBoolean(false);
            if (options.json) {
                System.out.println(answer.text());
            } else if (valid) {
                System.out.println("chain of agent " + agentId + " is valid: " + r.path("events_verified").asLong()
                        + " events verified (sequences 1 to " + r.path("head_sequence").asLong() + ")");
                System.out.println("head hash: " + r.path("head_hash").asText());
            } else {
                System.out.println("chain of agent " + agentId + " is INVALID: " + r.path("error").asText());
                if (r.hasNonNull("expected")) {
                    System.out.println("  expected: " + r.path("expected").asText());
                    System.out.println("  actual:   " + r.path("actual").asText());
                }
                System.out.println("  " + r.path("events_verified").asLong() + " events verified before it");
            }
            return valid ? 0 : 1;
        } catch (ServerClient.ClientException e) {
            System.err.println("trailproof: " + e.getMessage());
            return 1;
        }
    }
}
