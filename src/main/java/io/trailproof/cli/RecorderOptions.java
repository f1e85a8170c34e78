package io.trailproof.cli;

import java.io.PrintStream;
import java.util.Map;

/**
 * The options every recorder that runs beside an agent takes (the MCP proxy, the LLM gateway): which
 * service to record to, with which key. Each recorder names its own {@code --agent-id}, whose default
 * differs.
 */
final class RecorderOptions {

    static final OptionSpec SERVER = OptionSpec.text("URL",
            "trailproof server base URL (default: $TRAILPROOF_URL or " + ClientOptions.DEFAULT_SERVER + ").", "--server");
    static final OptionSpec API_KEY = OptionSpec.text("KEY",
            "API key with the ingest role (default: $TRAILPROOF_API_KEY).", "--api-key");

    private final String server;
    private final String apiKey;

    private RecorderOptions(String server, String apiKey) {
        this.server = server;
        this.apiKey = apiKey;
    }

    /** Declares these options on {@code spec}. */
    static CommandSpec declare(CommandSpec spec) {
        return spec.option(SERVER).option(API_KEY);
    }

    /** Their values on a parsed command line. */
    static RecorderOptions of(Arguments args) {
        return new RecorderOptions(args.text(SERVER), args.text(API_KEY));
    }

    /** These options, {@code agentId} and {@code env} resolved ({@link RecordingTarget#resolve}); null when malformed. */
    RecordingTarget target(String agentId, Map<String, String> env, PrintStream err) {
        return RecordingTarget.resolve(server, apiKey, agentId, env, err);
    }
}
