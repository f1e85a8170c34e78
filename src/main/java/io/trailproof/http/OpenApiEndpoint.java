package io.trailproof.http;

import io.undertow.util.Headers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * {@code GET /v1/openapi.json} (src/site/operations.md): the OpenAPI 3.1 document of this API, a static
 * resource beside this class ({@value #RESOURCE}) loaded once at start, so that what is served is
 * exactly what the tests validate real answers against (OpenApiContractIT).
 *
 * <p>Under the {@code read} role like every other {@code /v1} read: the map of the API is not handed
 * to a caller without a key, for the same reason a 401 comes before a 404 (src/site/http-api.md#administration).
 */
final class OpenApiEndpoint {

    static final String RESOURCE = "openapi.json";
    static final String PATH = "/v1/openapi.json";

    private final byte[] document;

    OpenApiEndpoint() {
        try (InputStream in = OpenApiEndpoint.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document " + RESOURCE + " is missing from the class path");
            }
            document = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the OpenAPI document " + RESOURCE, e);
        }
    }

    void register(Router router) {
        router.get(PATH, (ex, p) -> {
            ex.getResponseHeaders().put(Headers.CACHE_CONTROL, "no-cache");
            Responses.bytes(ex, 200, ByteBuffer.wrap(document));
        });
    }
}
