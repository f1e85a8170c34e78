package io.trailproof.http;

import io.trailproof.checkpoint.CheckpointService;
import io.trailproof.checkpoint.SignedCheckpoint;
import io.trailproof.checkpoint.Tiles;
import io.trailproof.config.ApiKey;
import io.trailproof.core.note.TilePath;
import io.trailproof.core.note.TlogRejection;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * {@code GET /checkpoint}, {@code GET /tile/...} and {@code GET /v1/checkpoint/key} (src/site/checkpoints.md),
 * at the paths tlog-tiles clients expect, so the service's base URL is the log's prefix.
 *
 * <p>They are open to everyone unless {@code checkpoint.public=false} puts them under {@code read}:
 * they carry only hashes, sizes and a public key.
 */
final class CheckpointEndpoints {
    /** The checkpoint changes every interval: clients must not cache it beyond a few seconds. */
    static final String CHECKPOINT_CACHE = "no-cache";
    /** A tile's path fixes its content (its width is in the path), so every tile is immutable. */
    static final String TILE_CACHE = "public, max-age=31536000, immutable";

    private final CheckpointService checkpoints;
    private final Tiles tiles;
    private final ApiKey.Role role;

    CheckpointEndpoints(CheckpointService checkpoints, Tiles tiles, boolean publicAccess) {
        this.checkpoints = checkpoints;
        this.tiles = tiles;
        this.role = publicAccess ? null : ApiKey.Role.READ;
    }

    void register(Router router) {
        router.add("GET", "/" + TilePath.CHECKPOINT_PATH, role, (ex, p) -> checkpoint(ex))
                .add("GET", "/v1/checkpoint/key", role, (ex, p) -> key(ex))
                .add("GET", "/tile/{*}", role, (ex, rest) -> tile(ex, rest));
    }

    private void checkpoint(HttpServerExchange ex) throws ApiException {
        SignedCheckpoint latest = checkpoints.latest().orElseThrow(() -> ApiException.notFound(
                "no checkpoint has been signed yet" + checkpoints.refusal().map(r -> ": " + r).orElse("")));
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, CHECKPOINT_CACHE);
        send(ex, "text/plain; charset=utf-8", latest.text().getBytes(StandardCharsets.UTF_8));
    }

    private void key(HttpServerExchange ex) throws Exception {
        Responses.json(ex, 200, Responses.MAPPER.createObjectNode()
                .put("origin", checkpoints.origin())
                .put("vkey", checkpoints.verifier().vkey()));
    }

    private void tile(HttpServerExchange ex, String rest) throws Exception {
        TilePath path;
        try {
            path = TilePath.parse("tile/" + rest);
        } catch (TlogRejection e) {
            throw ApiException.notFound(e.getMessage() + ": tiles are tile/<L>/<N>[.p/<W>] and "
                    + "tile/entries/<N>[.p/<W>] with N in x001/x234/067 form (c2sp.org/tlog-tiles)");
        }
        Optional<byte[]> bytes = tiles.read(path);
        if (bytes.isEmpty()) {
            throw ApiException.notFound(path.path() + " is beyond the latest signed checkpoint");
        }
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, TILE_CACHE);
        send(ex, TilePath.CONTENT_TYPE, bytes.get());
    }

    private static void send(HttpServerExchange ex, String contentType, byte[] body) {
        ex.setStatusCode(200);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, contentType);
        ex.setResponseContentLength(body.length);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }
}
