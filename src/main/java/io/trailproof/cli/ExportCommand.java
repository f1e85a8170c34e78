package io.trailproof.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.trailproof.core.evidence.EvidenceFormat;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code trailproof export}: streams an agent's evidence package from the server to a file, with a
 * progress bar. The file appears only once the whole package has arrived (it is written beside
 * the target first), so an interrupted transfer never leaves a partial package under the name.
 */
final class ExportCommand implements CliCommand {

    private static final Pattern FILE_NAME = Pattern.compile("filename=\"([^\"/\\\\]+)\"");

    ClientOptions options;

    static final OptionSpec AGENT_ID = OptionSpec.text("A", "The agent whose chain to export.",
            "--agent-id").required();
    String agentId;

    static final OptionSpec SINCE = OptionSpec.text("T", "Only the slice from the first event with a "
            + "timestamp at or after T.",
            "--since");
    String since;

    static final OptionSpec UNTIL = OptionSpec.text("T", "Only the slice up to the last event with a "
            + "timestamp before T.",
            "--until");
    String until;

    static final OptionSpec OUTPUT = OptionSpec.value(ValueType.PATH, "FILE", "Where to write the package "
            + "(default: the name the server suggests, in this directory).",
            "-o", "--output");
    Path output;

    @Override
    public CommandSpec spec() {
        return ClientOptions.declare(new CommandSpec("export", "Download the evidence package of an agent's "
                + "chain, or of a time slice of it (src/site/evidence-format.md).")
                .option(AGENT_ID).option(SINCE).option(UNTIL).option(OUTPUT));
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        options = ClientOptions.of(args);
        agentId = args.text(AGENT_ID);
        since = args.text(SINCE);
        until = args.text(UNTIL);
        output = args.path(OUTPUT);
        ServerClient client = options.client();
        try {
            long total = since == null && until == null ? eventCount(client) : 0;
            Map<String, String> query = ServerClient.query();
            query.put("agent_id", agentId);
            query.put("since", since);
            query.put("until", until);
            HttpResponse<InputStream> response = client.stream(ServerClient.path("/v1/export", query));
            if (response.statusCode() != 200) {
                byte[] body;
                try (InputStream in = response.body()) {
                    body = in.readAllBytes();
                }
                System.err.println("trailproof: " + new ServerClient.Answer(response.statusCode(), body).error());
                return response.statusCode() == 400 ? Main.BAD_USAGE : 1;
            }
            Path target = output != null ? output : Path.of(suggestedName(response));
            return receive(response, target, total);
        } catch (ServerClient.ClientException e) {
            System.err.println("trailproof: " + e.getMessage());
            return 1;
        }
    }

    private int receive(HttpResponse<InputStream> response, Path target, long total) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path part = absolute.resolveSibling(absolute.getFileName() + ".part");
        ProgressBar bar = ProgressBar.onStderr("events", total);
        Summary summary;
        try (InputStream body = response.body(); OutputStream file = Files.newOutputStream(part)) {
            summary = copyCounting(body, file, bar);
        } catch (IOException e) {
            Files.deleteIfExists(part);
            System.err.println();
            System.err.println("trailproof: the export was interrupted (" + e.getMessage() + "); nothing was written "
                    + "to " + target + ". Try again.");
            return 1;
        }
        bar.finish(summary.events);
        Files.move(part, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        if (options.json) {
            System.out.println(ServerClient.JSON.createObjectNode().put("file", target.toString())
                    .put("agent_id", agentId).put("events", summary.events).put("tree_size", summary.treeSize)
                    .put("bytes", Files.size(absolute)));
        } else {
            System.out.println("wrote " + summary.events + " events of agent " + agentId + " (tree size "
                    + summary.treeSize + ") to " + target);
            System.out.println("check it offline with: trailproof verify-export " + target);
        }
        return 0;
    }

    private record Summary(long events, long treeSize) {
    }

    /**
     * Copies the package to {@code file} while reading it as JSON, to count events for the progress
     * bar and to notice a truncated transfer (the JSON would end early).
     */
    private static Summary copyCounting(InputStream body, OutputStream file, ProgressBar bar) throws IOException {
        InputStream tee = new FilterInputStream(body) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    file.write(b);
                }
                return b;
            }

            @Override
            public int read(byte[] buf, int off, int len) throws IOException {
                int n = super.read(buf, off, len);
                if (n > 0) {
                    file.write(buf, off, n);
                }
                return n;
            }
        };
        long events = 0;
        long treeSize = -1;
        try (JsonParser p = new JsonFactory().createParser(tee)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the server did not send an evidence package");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals(EvidenceFormat.EVENTS) && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        p.skipChildren();
                        bar.update(++events);
                    }
                } else if (name.equals(EvidenceFormat.TREE_SIZE) && value == JsonToken.VALUE_NUMBER_INT) {
                    treeSize = p.getLongValue();
                } else {
                    p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT) {
                throw new IOException("the package ended early");
            }
            tee.transferTo(OutputStream.nullOutputStream());
        }
        return new Summary(events, treeSize);
    }

    private long eventCount(ServerClient client) {
        try {
            ServerClient.Answer answer = client.get("/v1/agents");
            if (answer.ok()) {
                for (var agent : answer.json()) {
                    if (agentId.equals(agent.path("agent_id").asText())) {
                        return agent.path("event_count").asLong();
                    }
                }
            }
        } catch (ServerClient.ClientException e) {
            // the export itself will say what is wrong
        }
        return 0;
    }

    private String suggestedName(HttpResponse<InputStream> response) {
        String disposition = response.headers().firstValue("Content-Disposition").orElse("");
        Matcher m = FILE_NAME.matcher(disposition);
        return m.find() && !m.group(1).startsWith(".") ? m.group(1) : "evidence.json";
    }
}
