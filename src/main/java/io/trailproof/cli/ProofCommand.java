package io.trailproof.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** {@code trailproof proof EVENT_ID [-o FILE]}: downloads the event's tlog-proof (src/site/checkpoints.md). */
final class ProofCommand implements CliCommand {

    ClientOptions options;

    static final ParameterSpec EVENT_ID = ParameterSpec.required(ValueType.TEXT, "EVENT_ID",
            "The event's id.");
    String eventId;

    static final OptionSpec OUTPUT = OptionSpec.value(ValueType.PATH, "FILE", "Write the proof here "
            + "(default: standard output).",
            "-o", "--output");
    Path output;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("proof", "Download an event's c2sp.org/tlog-proof: its "
                + "inclusion proof under a signed checkpoint.")
                .parameter(EVENT_ID).option(OUTPUT));
    }

    @Override
    public int run(Arguments args, Streams io) {
        options = ClientOptions.of(args);
        eventId = args.text(EVENT_ID);
        output = args.path(OUTPUT);
        try {
            Map<String, String> query = ServerClient.query();
            query.put("event_id", eventId);
            query.put("format", "tlog-proof");
            ServerClient.Answer answer = options.client().get(ServerClient.path("/v1/merkle/proof", query));
            if (!answer.ok()) {
                System.err.println("trailproof: " + answer.error());
                return answer.status() == 400 ? Main.BAD_USAGE : 1;
            }
            if (output == null) {
                System.out.print(answer.text());
            } else {
                Files.write(output, answer.body());
                System.err.println("wrote the proof of event " + eventId + " to " + output);
            }
            return 0;
        } catch (ServerClient.ClientException | IOException e) {
            System.err.println("trailproof: " + e.getMessage());
            return 1;
        }
    }
}
