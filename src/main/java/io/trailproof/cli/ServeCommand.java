package io.trailproof.cli;

import io.trailproof.config.ConfigException;
import io.trailproof.config.ConfigKey;
import io.trailproof.config.Settings;
import io.trailproof.config.SettingsLoader;
import io.trailproof.logging.ServiceLogging;
import io.trailproof.server.TrailproofServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code trailproof serve}: runs the service until SIGTERM or SIGINT, then stops cleanly and exits 0. */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run the trailproof service.")
final class ServeCommand implements Callable<Integer> {

    private static final System.Logger LOG = System.getLogger(ServeCommand.class.getName());

    @Option(names = "--host", description = "Address to bind (server.host, default 127.0.0.1).")
    String host;

    @Option(names = "--port", description = "Port (server.port, default 7600; 0 picks a free one).")
    String port;

    @Option(names = "--data-dir", description = "Data directory (data.dir, default ~/.trailproof).")
    String dataDir;

    @Option(names = "--config", description = "A properties file; config/trailproof.properties lists every key.")
    Path config;

    @Option(names = "--api-keys", description = "Comma list of API keys (auth.api-keys).")
    String apiKeys;

    @Option(names = "--insecure-no-auth", description = "Allow a non-loopback address without API keys.")
    boolean insecureNoAuth;

    @Option(names = "--accept-truncation", description = "Start even when acknowledged events are missing from the log "
            + "(storage.accept-truncation); the loss is reported on /health. Only after reading the refusal.")
    boolean acceptTruncation;

    @Option(names = "--set", paramLabel = "KEY=VALUE", mapFallbackValue = "",
            description = "Any configuration key, repeatable (--set verify.interval=PT10M, "
                    + "--set cluster.kafka.security.protocol=SSL); the options above win over it.")
    Map<String, String> set = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        return run(flags());
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
        for (String w : warnings) {
            LOG.log(System.Logger.Level.WARNING, w);
        }
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
        CountDownLatch stop = new CountDownLatch(1);
        Shutdown.onTerminate(stop::countDown);
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
