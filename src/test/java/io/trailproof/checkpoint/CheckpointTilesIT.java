package io.trailproof.checkpoint;

import java.util.concurrent.atomic.AtomicReference;
import java.time.Duration;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TiledTree;
import io.trailproof.core.note.TilePath;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed checkpoints and tiles against the real server: the checkpoint verifies with the served key,
 * a tlog client rebuilds its root from tiles alone, entry bundles hash to the level-0 tiles, and
 * nothing past the checkpoint is served.
 */
class CheckpointTilesIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    @Test
    void aTlogClientRebuildsTheSignedRootFromTilesAlone() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir, "checkpoint.interval", "PT0.05S",
                "checkpoint.origin", "example.com/audit")) {
            Api api = server.api();
            int events = 700;
            ingest(api, events);
            TlogCheckpoint cp = awaitCheckpoint(api, events);
            assertThat(cp.origin()).isEqualTo("example.com/audit");

            byte[] fromTiles = TiledTree.root(cp.size(), t -> get(api, t.path()).body());
            assertThat(fromTiles).isEqualTo(cp.root());
            JsonNode root = api.get("/v1/merkle/root?tree_size=" + cp.size()).json();
            assertThat(HexFormat.of().formatHex(cp.root())).isEqualTo(root.get("root").asText());

            // Entry bundles: each entry is the 32-byte event hash with a 2-byte length, hashing to level 0.
            for (long n = 0; n < 3; n++) {
                TilePath level0 = TilePath.inTree(false, 0, n, cp.size()).orElseThrow();
                TilePath bundle = TilePath.inTree(true, 0, n, cp.size()).orElseThrow();
                HttpResponse<byte[]> tile = get(api, level0.path());
                HttpResponse<byte[]> entries = get(api, bundle.path());
                assertThat(tile.statusCode()).isEqualTo(200);
                assertThat(tile.headers().firstValue("Content-Type")).hasValue("application/octet-stream");
                assertThat(tile.headers().firstValue("Cache-Control").orElse("")).contains("immutable");
                assertThat(entries.body()).hasSize(bundle.width() * 34);
                for (int i = 0; i < bundle.width(); i++) {
                    byte[] e = entries.body();
                    assertThat(e[i * 34]).isZero();
                    assertThat(e[i * 34 + 1]).isEqualTo((byte) 32);
                    byte[] leafHash = Rfc9162.leafHash(Arrays.copyOfRange(e, i * 34 + 2, i * 34 + 34));
                    assertThat(leafHash).isEqualTo(Arrays.copyOfRange(tile.body(), i * 32, i * 32 + 32));
                }
            }
            // 700 = 2 full tiles + a partial of 188; level 1 has a partial of width 2.
            assertThat(get(api, "tile/0/002.p/188").statusCode()).isEqualTo(200);
            assertThat(get(api, "tile/0/002.p/100").statusCode()).isEqualTo(200);
            assertThat(get(api, "tile/1/000.p/2").statusCode()).isEqualTo(200);
            assertThat(get(api, "tile/0/002.p/189").statusCode()).isEqualTo(404);
            assertThat(get(api, "tile/0/002").statusCode()).isEqualTo(404);
            assertThat(get(api, "tile/0/003.p/1").statusCode()).isEqualTo(404);
            assertThat(get(api, "tile/0/2").statusCode()).isEqualTo(404);
            assertThat(get(api, "tile/entries/x002").statusCode()).isEqualTo(404);
        }
    }

    @Test
    void keyIsKeptOwnerOnlyAndTheSameAcrossRestarts() throws Exception {
        String vkey;
        try (InProcessServer server = InProcessServer.start(dir, "checkpoint.interval", "PT0.05S")) {
            JsonNode key = server.api().get("/v1/checkpoint/key").json();
            vkey = key.get("vkey").asText();
            assertThat(key.get("origin").asText()).matches("localhost/trailproof/[0-9a-f]{8}");
            assertThat(vkey).startsWith(key.get("origin").asText() + "+");
            // An empty log has a signed checkpoint of size 0 with the empty root.
            TlogCheckpoint empty = awaitCheckpoint(server.api(), 0);
            assertThat(empty.root()).isEqualTo(Rfc9162.emptyRoot());
        }
        Path keyFile = dir.resolve(CheckpointKeys.KEY_FILE);
        assertThat(Files.getPosixFilePermissions(keyFile))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(Files.getPosixFilePermissions(keyFile.getParent())).containsExactlyInAnyOrder(
                PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
        try (InProcessServer server = InProcessServer.start(dir, "checkpoint.interval", "PT0.05S")) {
            assertThat(server.api().get("/v1/checkpoint/key").json().get("vkey").asText()).isEqualTo(vkey);
            ingest(server.api(), 3);
            awaitCheckpoint(server.api(), 3);
        }
    }

    @Test
    void publicByDefaultEvenWithKeysAndClosedWhenConfigured() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir, "auth.api-keys", "secret-r:read")) {
            Api api = server.api();
            assertThat(api.get("/v1/events").status()).isEqualTo(401);
            assertThat(api.get("/v1/checkpoint/key").status()).isEqualTo(200);
            awaitCheckpoint(api, 0);
        }
        try (InProcessServer server = InProcessServer.start(dir, "auth.api-keys", "secret-r:read",
                "checkpoint.public", "false")) {
            Api api = server.api();
            assertThat(api.get("/checkpoint").status()).isEqualTo(401);
            assertThat(api.get("/v1/checkpoint/key").status()).isEqualTo(401);
            assertThat(get(api, "tile/0/000.p/1").statusCode()).isEqualTo(401);
        }
    }

    @Test
    void aHistoryThatContradictsTheSignedCheckpointStopsSigning() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir, "checkpoint.interval", "PT0.05S")) {
            ingest(server.api(), 5);
            awaitCheckpoint(server.api(), 5);
        }
        // Another log's history under the same key: the tree at size 5 no longer gives the signed root.
        Path other = dir.resolveSibling(dir.getFileName() + "-other");
        try (InProcessServer server = InProcessServer.start(other, "checkpoint.interval", "PT0.05S")) {
            ingest(server.api(), 6);
        }
        Files.createDirectories(other.resolve("keys"));
        Files.copy(dir.resolve(CheckpointKeys.KEY_FILE), other.resolve(CheckpointKeys.KEY_FILE),
                StandardCopyOption.REPLACE_EXISTING);
        Files.createDirectories(other.resolve("tlog"));
        Files.copy(dir.resolve(CheckpointFile.NAME), other.resolve(CheckpointFile.NAME),
                StandardCopyOption.REPLACE_EXISTING);
        try (InProcessServer server = InProcessServer.start(other, "checkpoint.interval", "PT0.05S")) {
            JsonNode health = server.api().get("/health").json();
            assertThat(health.get("status").asText()).isEqualTo("degraded");
            assertThat(health.get("problems").toString()).contains("checkpoint signing stopped");
            // The last good checkpoint stays served; nothing new is signed.
            Await.nothingHappensWithin("a new checkpoint is signed (every 50 ms if signing worked)");
            TlogCheckpoint served = TlogCheckpoint.parse(textOf(server.api().get("/checkpoint").body()));
            assertThat(served.size()).isEqualTo(5);
        }
    }

    static void ingest(Api api, int events) throws Exception {
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < events; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"agent-").append(i % 7).append("\",\"action_type\":\"TOOL_CALL\"}");
        }
        assertThat(api.post("/v1/batch", batch.append("]").toString()).status()).isEqualTo(201);
    }

    /** Waits until /checkpoint names {@code size}; verifies it with the served key. */
    static TlogCheckpoint awaitCheckpoint(Api api, long size) throws Exception {
        NoteVerifier key = VerifierKey.parse(api.get("/v1/checkpoint/key").json().get("vkey").asText());
        AtomicReference<TlogCheckpoint> found = new AtomicReference<>();
        Await.untilTrue("a checkpoint of size " + size, Duration.ofSeconds(30), () -> {
            Api.Reply r = api.get("/checkpoint");
            if (r.status() != 200) {
                return false;
            }
            assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(r.header("Cache-Control")).isEqualTo("no-cache");
            NoteVerification.Opened o = NoteVerification.open(r.body().getBytes(StandardCharsets.UTF_8), List.of(key));
            found.set(TlogCheckpoint.parse(o.note().text()));
            return found.get().size() == size;
        });
        return found.get();
    }

    private static String textOf(String note) {
        return note.substring(0, note.indexOf("\n\n") + 1);
    }

    static HttpResponse<byte[]> get(Api api, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(api.base() + "/" + path)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }
}
