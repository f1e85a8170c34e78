package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code trailproof ingest FILE.jsonl}: sends one event per line in batches. A line that is not
 * JSON is reported with its number and not sent; an event the server refuses is reported with its
 * line number and the server's reason. Exit 0 when every line was stored, 1 otherwise.
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = "Send events from a JSON Lines file (one event per line) to a running server.")
final class IngestCommand implements Callable<Integer> {

    @Mixin
    ClientOptions client;

    @Parameters(paramLabel = "FILE.jsonl", description = "One JSON event object per line; blank lines are skipped.")
    Path file;

    @Option(names = "--batch-size", defaultValue = "1000", description = "Events per request (1..10000, default 1000).")
    int batchSize;

    @Override
    public Integer call() throws Exception {
        if (batchSize < 1 || batchSize > 10_000) {
            System.err.println("trailproof: --batch-size must be between 1 and 10000");
            return Main.BAD_USAGE;
        }
        if (!Files.isReadable(file)) {
            System.err.println("trailproof: cannot read " + file);
            return Main.BAD_USAGE;
        }
        ServerClient server = client.client();
        ProgressBar bar = ProgressBar.onStderr("events", Files.size(file));
        long stored = 0;
        long failed = 0;
        long bytesRead = 0;
        List<String> pending = new ArrayList<>();
        List<Long> pendingLines = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                bytesRead += line.length() + 1;
                if (line.isBlank()) {
                    continue;
                }
                if (!isJsonObject(line)) {
                    System.err.println("line " + number + ": not a JSON object; not sent");
                    failed++;
                    continue;
                }
                pending.add(line);
                pendingLines.add(number);
                if (pending.size() == batchSize) {
                    long[] r = send(server, pending, pendingLines);
                    stored += r[0];
                    failed += r[1];
                    pending.clear();
                    pendingLines.clear();
                    bar.update(bytesRead);
                }
            }
        } catch (ServerClient.ClientException e) {
            System.err.println("trailproof: " + e.getMessage());
            System.err.println(stored + " events were stored before the failure");
            return 1;
        }
        if (!pending.isEmpty()) {
            try {
                long[] r = send(server, pending, pendingLines);
                stored += r[0];
                failed += r[1];
            } catch (ServerClient.ClientException e) {
                System.err.println("trailproof: " + e.getMessage());
                System.err.println(stored + " events were stored before the failure");
                return 1;
            }
        }
        bar.finish(bytesRead);
        System.out.println(stored + " events stored, " + failed + " refused");
        return failed == 0 ? 0 : 1;
    }

    private static boolean isJsonObject(String line) {
        try {
            JsonNode n = ServerClient.JSON.readTree(line);
            return n != null && n.isObject();
        } catch (IOException e) {
            return false;
        }
    }

    /** Sends one batch; returns {stored, refused}. Item errors are printed with their line numbers. */
    private static long[] send(ServerClient server, List<String> lines, List<Long> numbers)
            throws ServerClient.ClientException {
        byte[] body = ("[" + String.join(",", lines) + "]").getBytes(StandardCharsets.UTF_8);
        ServerClient.Answer answer = server.post("/v1/batch", body);
        if (answer.status() != 201 && answer.status() != 207) {
            System.err.println("lines " + numbers.get(0) + "-" + numbers.get(numbers.size() - 1) + ": batch refused: "
                    + answer.error());
            return new long[] {0, lines.size()};
        }
        long stored = 0;
        long refused = 0;
        for (JsonNode item : answer.json()) {
            if (item.has("event")) {
                stored++;
            } else {
                refused++;
                System.err.println("line " + numbers.get(item.get("index").asInt()) + ": " + item.get("error").asText());
            }
        }
        return new long[] {stored, refused};
    }
}
