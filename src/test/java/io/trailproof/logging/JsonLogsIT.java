package io.trailproof.logging;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.testing.Api;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code log.format=json} and {@code log.access=true} on the real launcher (src/site/operations.md): every line
 * the process prints from start to stop is a JSON object with time, level, logger and message, and
 * an access line per request names the key by its name, never the key.
 */
class JsonLogsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "it-secret-key-7f3a9c";

    @TempDir
    Path dir;

    @Test
    void everyLineIsAJsonRecordAndAccessLinesNameTheKeyNotTheKey() throws Exception {
        String output;
        try (ServerProcess server = ServerProcess.start(dir.resolve("data"),
                Map.of("TRAILPROOF_LOG_FORMAT", "json", "TRAILPROOF_LOG_ACCESS", "true"), "--api-keys", KEY)) {
            Api api = server.api();
            Api.Reply stored = api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/events"))
                    .header("Authorization", "Bearer " + KEY).header("X-Request-Id", "it-request-1")
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"agent_id\":\"log-a\"}")));
            assertThat(stored.status()).isEqualTo(201);
            assertThat(stored.header("X-Request-Id")).isEqualTo("it-request-1");
            assertThat(api.get("/v1/stats").status()).isEqualTo(401);
            Api.Reply missing = api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/events/nope?q=private"))
                    .header("Authorization", "Bearer " + KEY).GET());
            assertThat(missing.status()).isIn(400, 404);
            assertThat(missing.header("X-Request-Id")).matches("[0-9a-f]{8}-[0-9]+");
            output = server.stopAndCollectOutput();
        }

        List<JsonNode> records = new ArrayList<>();
        for (String line : output.split("\n")) {
            JsonNode r = JSON.readTree(line);
            assertThat(r.isObject()).as(line).isTrue();
            assertThat(r.path("time").asText()).as(line).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
            assertThat(r.path("level").asText()).as(line).isIn("ERROR", "WARN", "INFO", "DEBUG", "TRACE");
            assertThat(r.has("logger") && r.has("message")).as(line).isTrue();
            records.add(r);
        }
        assertThat(output).doesNotContain(KEY);
        assertThat(records).anyMatch(r -> r.path("message").asText().startsWith("trailproof listening on http://"));
        assertThat(records).anyMatch(r -> r.path("message").asText().equals("trailproof stopped"));

        List<JsonNode> access = records.stream().filter(r -> r.path("logger").asText().equals("io.trailproof.access")).toList();
        assertThat(access).hasSize(3);
        JsonNode post = access.get(0);
        assertThat(post.path("method").asText()).isEqualTo("POST");
        assertThat(post.path("path").asText()).isEqualTo("/v1/events");
        assertThat(post.path("status").asInt()).isEqualTo(201);
        assertThat(post.path("bytes").asLong()).isPositive();
        assertThat(post.path("duration_ms").isNumber()).isTrue();
        assertThat(post.path("request_id").asText()).isEqualTo("it-request-1");
        assertThat(post.path("key_name").asText()).isEqualTo("key-" + sha256Hex(KEY).substring(0, 8));
        assertThat(access.get(1).path("status").asInt()).isEqualTo(401);
        assertThat(access.get(1).has("key_name")).isFalse();
        // the query string (search terms about audited data) stays out of the log
        assertThat(access.get(2).path("path").asText()).isEqualTo("/v1/events/nope");
        assertThat(output).doesNotContain("q=private");
    }

    private static String sha256Hex(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }
}
