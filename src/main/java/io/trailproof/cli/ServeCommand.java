package io.trailproof.cli;

import io.trailproof.config.ConfigException;
import io.trailproof.config.ConfigKey;
import io.trailproof.config.Settings;
import io.trailproof.config.SettingsLoader;
import io.trailproof.logging.ServiceLogging;
import io.trailproof.server.TrailproofServer;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code trailproof serve}: runs the service until SIGTERM or SIGINT, then stops cleanly and exits 0. */
final class ServeCommand implements CliCommand {

    static final OptionSpec HOST = OptionSpec.text("HOST", "Address to bind (server.host, default 127.0.0.1).",
            "--host");
    String host;

    static final OptionSpec PORT = OptionSpec.text("PORT", "Port (server.port, default 7600; 0 picks a free one).",
            "--port");
    String port;

    static final OptionSpec DATA_DIR = OptionSpec.text("DIR", "Data directory (data.dir, default ~/.trailproof).",
            "--data-dir");
    String dataDir;

    static final OptionSpec CONFIG = OptionSpec.value(ValueType.PATH, "FILE", "A properties file; "
            + "config/trailproof.properties lists every key.",
            "--config");
    Path config;

    static final OptionSpec API_KEYS = OptionSpec.text("K1,K2", "Comma list of API keys (auth.api-keys).",
            "--api-keys");
    String apiKeys;

    static final OptionSpec INSECURE_NO_AUTH = OptionSpec.flag("Allow a non-loopback address without API keys.",
            "--insecure-no-auth");
    boolean insecureNoAuth;

    static final OptionSpec ACCEPT_TRUNCATION = OptionSpec.flag("Start even when acknowledged events are "
            + "missing from the log "
            + "(storage.accept-truncation); the loss is reported on /health. Only after reading the refusal.",
            "--accept-truncation");
    boolean acceptTruncation;

    static final OptionSpec SET = OptionSpec.value(ValueType.KEY_VALUE, "KEY=VALUE", "Any configuration "
            + "key, repeatable (--set verify.interval=PT10M, "
                    + "--set cluster.kafka.security.protocol=SSL); the options above win over it.",
            "--set").repeatable().keyOnlyValue("");
    Map<String, String> set;

    @Override
    public CommandSpec spec() {
        return new CommandSpec("serve", "Run the trailproof service.")
                .option(HOST).option(PORT).option(DATA_DIR).option(CONFIG).option(API_KEYS)
                .option(INSECURE_NO_AUTH)
                .option(ACCEPT_TRUNCATION).option(SET);
    }

    @Override
    public int run(Arguments args, Streams io) throws Exception {
        read(args);
        return run(flags());
    }

    /** Takes the values of the options. */
    void read(Arguments args) {
        host = args.text(HOST);
        port = args.text(PORT);
        dataDir = args.text(DATA_DIR);
        config = args.path(CONFIG);
        apiKeys = args.text(API_KEYS);
        insecureNoAuth = args.flag(INSECURE_NO_AUTH);
        acceptTruncation = args.flag(ACCEPT_TRUNCATION);
        set = args.map(SET) != null ? args.map(SET) : new LinkedHashMap<>();
    }

    /** The configuration the command line gives: every {@code --set}, then the named flags over them. */
    Map<String, String> flags() {
        Map<String, String> flags = new LinkedHashMap<>(set);
        put(flags, ConfigKey.SERVER_HOST, host);
        put(flags, ConfigKey.SERVER_PORT, port);
        put(flags, ConfigKey.DATA_DIR, dataDir);
        put(flags, ConfigKey.AUTH_API_KEYS, apiKeys);
        if (acceptTruncation) {
            flags.put(ConfigKey.STORAGE_ACCEPT_TRUNCATION.key(), "true");
        }
        return flags;
    }

    private Integer run(Map<String, String> flags) throws Exception {
        Settings settings;
        List<String> warnings = new ArrayList<>();
        try {
            settings = SettingsLoader.load(flags, System.getenv(), config, insecureNoAuth, warnings);
        } catch (ConfigException e) {
            System.err.println("trailproof: " + e.getMessage());
            return Main.BAD_USAGE;
        }
        ServiceLogging.install(settings.observability().jsonLogs());
        // Asked for here, not when the class loads: the help makes every command, and the first logger
        // starts the logging, which looks through every jar (ServiceLogging.quietForCommands).
        System.Logger log = System.getLogger(ServeCommand.class.getName());
        for (String w : warnings) {
            log.log(System.Logger.Level.WARNING, w);
        }
        // Installed before the start, so that a SIGTERM sent as soon as "listening" is printed (or
        // during the start) stops the server cleanly instead of ending the JVM with 143.
        CountDownLatch stop = new CountDownLatch(1);
        Shutdown.onTerminate(stop::countDown);
        TrailproofServer server;
        try {
            server = TrailproofServer.start(settings, Clock.systemUTC());
        } catch (TrailproofServer.StartException e) {
            System.err.println("trailproof: " + e.getMessage());
            return Main.BAD_USAGE;
        } catch (Exception e) {
            System.err.println("trailproof: cannot start: " + e.getMessage());
            return 1;
        }
        System.out.println("trailproof listening on http://" + settings.host() + ":" + server.port()
                + " (data directory " + settings.dataDir().toAbsolutePath() + ")");
        System.out.flush();
        stop.await();
        System.out.println("trailproof stopping: finishing requests in flight");
        server.close();
        System.out.println("trailproof stopped");
        return 0;
    }

    private static void put(Map<String, String> flags, ConfigKey key, String value) {
        if (value != null) {
            flags.put(key.key(), value);
        }
    }
}
