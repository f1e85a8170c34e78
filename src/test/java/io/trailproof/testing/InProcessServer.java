package io.trailproof.testing;

import io.trailproof.config.Settings;
import io.trailproof.config.SettingsLoader;
import io.trailproof.server.TrailproofServer;

import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/** The real server, started in the test JVM on a free port with the given data directory. */
public final class InProcessServer implements AutoCloseable {

    private final TrailproofServer server;
    private Api api;

    private InProcessServer(TrailproofServer server) {
        this.server = server;
    }

    public static InProcessServer start(Path dataDir, String... keyValues) throws Exception {
        return start(dataDir, Clock.systemUTC(), keyValues);
    }

    /** As {@link #start(Path, String...)} with the service's clock chosen (a test seam: e.g. one that holds the sequencer). */
    public static InProcessServer start(Path dataDir, Clock clock, String... keyValues) throws Exception {
        Map<String, String> flags = new HashMap<>();
        flags.put("server.port", "0");
        flags.put("data.dir", dataDir.toString());
        for (int i = 0; i < keyValues.length; i += 2) {
            flags.put(keyValues[i], keyValues[i + 1]);
        }
        Settings settings = SettingsLoader.load(flags, Map.of(), null, false);
        return new InProcessServer(TrailproofServer.start(settings, clock));
    }

    /**
     * The one client of this server: every call answers the same {@link Api}, so its connections are
     * reused instead of each call opening its own (the service caps one address's connections).
     */
    public synchronized Api api() {
        if (api == null) {
            api = new Api(server.port());
        }
        return api;
    }

    public TrailproofServer server() {
        return server;
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}
