package io.trailproof.cli;

import picocli.CommandLine.Option;

import java.net.URI;

/**
 * The options every client subcommand shares (src/site/cli.md): which server, which key, and whether to
 * print the raw JSON answer instead of the human-readable form.
 */
final class ClientOptions {

    static final String DEFAULT_SERVER = "http://127.0.0.1:7600";

    @Option(names = "--server", paramLabel = "URL",
            description = "Server base URL (default: $TRAILPROOF_URL or " + DEFAULT_SERVER + ").")
    String server;

    @Option(names = "--api-key", paramLabel = "KEY", description = "API key (default: $TRAILPROOF_API_KEY).")
    String apiKey;

    @Option(names = "--json", description = "Print the server's raw JSON answer.")
    boolean json;

    ServerClient client() {
        String url = server != null ? server : System.getenv().getOrDefault("TRAILPROOF_URL", DEFAULT_SERVER);
        String key = apiKey != null ? apiKey : System.getenv("TRAILPROOF_API_KEY");
        return new ServerClient(URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url), key);
    }
}
