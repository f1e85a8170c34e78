package io.trailproof.cli;

import java.net.URI;

/**
 * The options every client subcommand shares (src/site/cli.md): which server, which key, and whether to
 * print the raw JSON answer instead of the human-readable form.
 */
final class ClientOptions {

    static final String DEFAULT_SERVER = "http://127.0.0.1:7600";

    static final OptionSpec SERVER = OptionSpec.text("URL",
            "Server base URL (default: $TRAILPROOF_URL or " + DEFAULT_SERVER + ").", "--server");
    static final OptionSpec API_KEY = OptionSpec.text("KEY", "API key (default: $TRAILPROOF_API_KEY).", "--api-key");
    static final OptionSpec JSON = OptionSpec.flag("Print the server's raw JSON answer.", "--json");

    final String server;
    final String apiKey;
    final boolean json;

    private ClientOptions(String server, String apiKey, boolean json) {
        this.server = server;
        this.apiKey = apiKey;
        this.json = json;
    }

    /** Declares these options on {@code spec}. */
    static CommandSpec declare(CommandSpec spec) {
        return spec.option(SERVER).option(API_KEY).option(JSON);
    }

    /** Their values on a parsed command line. */
    static ClientOptions of(Arguments args) {
        return new ClientOptions(args.text(SERVER), args.text(API_KEY), args.flag(JSON));
    }

    ServerClient client() {
        String url = server != null ? server : System.getenv().getOrDefault("TRAILPROOF_URL", DEFAULT_SERVER);
        String key = apiKey != null ? apiKey : System.getenv("TRAILPROOF_API_KEY");
        return new ServerClient(URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url), key);
    }
}
