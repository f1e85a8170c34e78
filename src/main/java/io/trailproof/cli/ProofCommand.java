package io.trailproof.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code trailproof proof EVENT_ID [-o FILE]}: downloads the event's tlog-proof (src/site/checkpoints.md). */
@Command(name = "proof", mixinStandardHelpOptions = true,
        description = "Download an event's c2sp.org/tlog-proof: its inclusion proof under a signed checkpoint.")
final class ProofCommand implements Callable<Integer> {

    @Mixin
    ClientOptions options;

    @Parameters(paramLabel = "EVENT_ID", description = "The event's id.")
    String eventId;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the proof here (default: standard output).")
    Path output;

    @Override
    public Integer call() {
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
