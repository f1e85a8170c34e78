package io.trailproof.http;

import io.undertow.server.HttpServerExchange;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Maps method and path to an endpoint. Exact paths, plus one trailing path parameter
 * ({@code /v1/events/{id}}). A known path with another method is a 405 with {@code Allow}.
 */
final class Router {

    @FunctionalInterface
    interface Endpoint {
        void handle(HttpServerExchange ex, String pathParameter) throws Exception;
    }

    private final Map<String, Map<String, Endpoint>> exact = new LinkedHashMap<>();
    private final Map<String, Map<String, Endpoint>> prefixed = new LinkedHashMap<>();

    Router add(String method, String path, Endpoint endpoint) {
        if (path.endsWith("/{id}")) {
            prefixed.computeIfAbsent(path.substring(0, path.length() - 4), p -> new TreeMap<>()).put(method, endpoint);
        } else {
            exact.computeIfAbsent(path, p -> new TreeMap<>()).put(method, endpoint);
        }
        return this;
    }

    void route(HttpServerExchange ex) throws Exception {
        String path = ex.getRelativePath();
        Map<String, Endpoint> methods = exact.get(path);
        String parameter = null;
        if (methods == null) {
            for (Map.Entry<String, Map<String, Endpoint>> e : prefixed.entrySet()) {
                String prefix = e.getKey();
                if (path.startsWith(prefix) && path.length() > prefix.length() && path.indexOf('/', prefix.length()) < 0) {
                    methods = e.getValue();
                    parameter = path.substring(prefix.length());
                    break;
                }
            }
        }
        if (methods == null) {
            throw ApiException.notFound("no such endpoint: " + Params.shorten(path));
        }
        Endpoint endpoint = methods.get(ex.getRequestMethod().toString());
        if (endpoint == null) {
            throw new ApiException(405, "method " + ex.getRequestMethod() + " is not allowed here; use "
                    + String.join(" or ", methods.keySet()), Map.of("Allow", String.join(", ", methods.keySet())));
        }
        endpoint.handle(ex, parameter);
    }
}
