package io.trailproof.http;

import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The OpenAPI document and the running server's router describe the same operations. */
class OpenApiRoutesIT {

    @TempDir
    static Path dir;

    /**
     * The document and the router agree: every registered route is documented, and every documented
     * operation is registered, but for those of {@link OpenApiContractIT#NOT_DRIVEN} that other branches
     * serve. A route added without its documentation fails here.
     */
    @Test
    void everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() throws Exception {
        OpenApiContract contract = OpenApiContract.load();
        List<String> routes;
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            // The routes the running server registered (the test reaches its HttpApi: nothing public exposes it).
            Field http = server.server().getClass().getDeclaredField("http");
            http.setAccessible(true);
            routes = ((HttpApi) http.get(server.server())).routes();
        }
        Set<String> routed = new TreeSet<>();
        for (String r : routes) {
            routed.add(normal(r));
        }
        Set<String> documented = new TreeSet<>();
        for (OpenApiContract.Operation op : contract.operations()) {
            String key = normal(op.key());
            documented.add(key);
            assertThat(routed).as(op.key() + " is served").contains(key);
        }
        assertThat(routed).as("every route is documented").isSubsetOf(documented);
        assertThat(routed).hasSizeGreaterThan(20);
    }

    /** {@code GET /v1/events/{id}} for any parameter name; every tile path as the router's {@code /tile/{*}}. */
    private static String normal(String methodAndPath) {
        String[] parts = methodAndPath.split(" ", 2);
        String path = parts[1].startsWith("/tile/") ? "/tile/{*}" : parts[1].replaceAll("\\{[^}]+}", "{}");
        return parts[0].toUpperCase(Locale.ROOT) + " " + path;
    }
}
