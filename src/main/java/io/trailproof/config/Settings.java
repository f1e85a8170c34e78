package io.trailproof.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The service's validated configuration: every value typed and checked (see {@link SettingsLoader}). */
public record Settings(
        String host,
        int port,
        Path dataDir,
        List<ApiKey> apiKeys,
        boolean insecureNoAuth,
        long maxBodyBytes,
        int maxBatchEvents,
        URI defaultTsaUrl,
        List<String> allowedTsaUrls,
        List<Path> trustAnchors,
        int timestampTimeoutMs,
        Duration verifyInterval,
        long logSegmentBytes,
        long checkpointIntervalEvents,
        Duration timestampInterval,
        int idleTimeoutMs,
        int headerTimeoutMs,
        int bodyTimeoutMs) {

    public Settings {
        apiKeys = List.copyOf(apiKeys);
        allowedTsaUrls = List.copyOf(allowedTsaUrls);
        trustAnchors = List.copyOf(trustAnchors);
    }

    public Settings withPort(int newPort) {
        return new Settings(host, newPort, dataDir, apiKeys, insecureNoAuth, maxBodyBytes, maxBatchEvents,
                defaultTsaUrl, allowedTsaUrls, trustAnchors, timestampTimeoutMs, verifyInterval, logSegmentBytes,
                checkpointIntervalEvents, timestampInterval, idleTimeoutMs, headerTimeoutMs, bodyTimeoutMs);
    }
}
