package io.trailproof.cli;

import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.Map;

/**
 * The options every recorder that runs beside an agent takes (the MCP proxy, the LLM gateway): which
 * service to record to, with which key. Each recorder names its own {@code --agent-id}, whose default
 * differs.
 */
final class RecorderOptions {

    @Option(names = "--server", paramLabel = "URL",
            description = "trailproof server base URL (default: $TRAILPROOF_URL or " + ClientOptions.DEFAULT_SERVER + ").")
    String server;

    @Option(names = "--api-key", paramLabel = "KEY", description = "API key with the ingest role (default: $TRAILPROOF_API_KEY).")
    String apiKey;

    /** These options, {@code agentId} and {@code env} resolved ({@link RecordingTarget#resolve}); null when malformed. */
    RecordingTarget target(String agentId, Map<String, String> env, PrintStream err) {
        return RecordingTarget.resolve(server, apiKey, agentId, env, err);
    }
}
