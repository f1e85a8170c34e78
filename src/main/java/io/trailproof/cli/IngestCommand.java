package io.trailproof.cli;

import io.trailproof.config.SettingsLoader;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code trailproof ingest FILE.jsonl}: sends one event per line in batches. A line that is not
 * JSON is reported with its number and not sent; an event the server refuses is reported with its
 * line number and the server's reason. Exit 0 when every line was stored, 1 otherwise.
 *
 * <p><b>Never twice.</b> Each batch carries an {@code Idempotency-Key} (src/site/ingestion.md#idempotency) made of the
 * file's identity (SHA-256 of its real absolute path) and the batch's first and last line numbers.
 * A batch whose answer was lost (a timeout, a dropped connection, a 503, a 409 while the first try
 * is still being processed) is sent again with the same key, and a whole run repeated after a
 * failure sends the same keys again: the server answers a batch it already stored with the answer
 * it recorded and stores nothing. That holds while the server remembers the keys
 * ({@code idempotency.retention}, 24 h by default) and for the same {@code --batch-size}.
 */
final class IngestCommand implements CliCommand {

    /** Tries of one batch whose answer was lost or that the server could not take yet. */
    static final int MAX_TRIES = 5;

    /** Stored events whose answer was a replay (stored by an earlier run or try). */
    private long replayed;

    ClientOptions client;

    static final ParameterSpec FILE = ParameterSpec.required(ValueType.PATH, "FILE.jsonl",
            "One JSON event object per line; blank lines are skipped.");
    Path file;

    static final OptionSpec BATCH_SIZE = OptionSpec.value(ValueType.INT, "N", "Events per request "
            + "(default 1000; at most the server's limits.max-batch-events, 10000 by default).",
            "--batch-size").defaultValue("1000");
    int batchSize;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("ingest", "Send events from a JSON Lines file (one "
                + "event per line) to a running server.",
                "Each batch carries an Idempotency-Key derived from the file's path and its line range, so a batch "
                        + "retried after a timeout, or the whole command run again after a failure (with the same "
                        + "--batch-size, within the server's idempotency.retention, 24 h by default), never stores a "
                        + "line twice: the server answers what it already stored with its recorded answer.")
                .parameter(FILE).option(BATCH_SIZE));
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        client = ClientOptions.of(args);
        file = args.path(FILE);
        batchSize = args.integer(BATCH_SIZE);
        if (batchSize < 1 || batchSize > SettingsLoader.MAX_BATCH_EVENTS) {
            // The server's limits.max-batch-events is the real ceiling; a larger batch is its 400.
            System.err.println("trailproof: --batch-size must be between 1 and " + SettingsLoader.MAX_BATCH_EVENTS
                    + " (and at most the server's limits.max-batch-events)");
            return Main.BAD_USAGE;
        }
        if (!Files.isReadable(file)) {
            System.err.println("trailproof: cannot read " + file);
            return Main.BAD_USAGE;
        }
        ServerClient server = client.client();
        String fileId = fileIdentity(file);
        ProgressBar bar = ProgressBar.onStderr("events", Files.size(file));
        long stored = 0;
        long failed = 0;
        long bytesRead = 0;
        replayed = 0;
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
                    long[] r = send(server, fileId, pending, pendingLines);
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
                long[] r = send(server, fileId, pending, pendingLines);
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
        if (replayed > 0) {
            System.out.println("(" + replayed + " of the stored events were already stored by an earlier run or try; "
                    + "the server replayed its recorded answers and stored nothing again)");
        }
        return failed == 0 ? 0 : 1;
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(Math.min(8000, 500L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean isJsonObject(String line) {
        try {
            JsonNode n = ServerClient.JSON.readTree(line);
            return n != null && n.isObject();
        } catch (IOException e) {
            return false;
        }
    }

    /** The file's part of every key: SHA-256 of its real absolute path (hex, 32 digits). */
    static String fileIdentity(Path file) throws IOException {
        try {
            byte[] path = file.toRealPath().toString().getBytes(StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(path), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The key of the batch of lines {@code first..last} of the file (1-based, inclusive). */
    static String batchKey(String fileId, long first, long last) {
        return "trailproof-ingest:" + fileId + ":lines-" + first + "-" + last;
    }

    /**
     * Sends one batch under its key, again (same key, same body) when its answer was lost or the
     * server asked to come back; returns {stored, refused}. Item errors are printed with their line
     * numbers.
     */
    private long[] send(ServerClient server, String fileId, List<String> lines, List<Long> numbers)
            throws ServerClient.ClientException {
        byte[] body = ("[" + String.join(",", lines) + "]").getBytes(StandardCharsets.UTF_8);
        String key = batchKey(fileId, numbers.get(0), numbers.get(numbers.size() - 1));
        ServerClient.Answer answer = null;
        for (int attempt = 1; answer == null; attempt++) {
            try {
                answer = server.post("/v1/batch", body, key);
                if ((answer.status() == 409 || answer.status() == 503) && attempt < MAX_TRIES) {
                    answer = null;   // still being processed, or the server cannot write yet: the same key again
                }
            } catch (ServerClient.ClientException e) {
                if (!e.mayHaveArrived() || attempt >= MAX_TRIES) {
                    throw e;
                }
                System.err.println("lines " + numbers.get(0) + "-" + numbers.get(numbers.size() - 1) + ": " + e.getMessage()
                        + "; sending the batch again under its Idempotency-Key (it is stored at most once)");
            }
            if (answer == null) {
                pause(attempt);
            }
        }
        if (answer.status() == 422) {
            System.err.println("lines " + numbers.get(0) + "-" + numbers.get(numbers.size() - 1) + ": not sent: an earlier "
                    + "run sent these lines with other content (the file changed since); " + answer.error());
            return new long[] {0, lines.size()};
        }
        if (answer.status() != 201 && answer.status() != 207) {
            System.err.println("lines " + numbers.get(0) + "-" + numbers.get(numbers.size() - 1) + ": batch refused: "
                    + answer.error());
            return new long[] {0, lines.size()};
        }
        long stored = 0;
        long refused = 0;
        for (JsonNode item : answer.json()) {
            if (answer.replayed() && item.has("event")) {
                replayed++;
            }
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
