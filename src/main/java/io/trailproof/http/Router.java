package io.trailproof.http;

import io.trailproof.config.ApiKey;
import io.undertow.server.HttpServerExchange;
import java.util.ArrayList;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

/**
 * Maps method and path to an endpoint and the role it needs. Exact paths, plus one trailing path
 * parameter ({@code /v1/events/{id}}), plus a trailing rest of the path that may hold slashes
 * ({@code /tile/{*}}, for tlog-tiles paths). A known path with another method is a 405 with {@code Allow}.
 */
final class Router {

    @FunctionalInterface
    interface Endpoint {
        void handle(HttpServerExchange ex, String pathParameter) throws Exception;
    }

    /**
     * An endpoint that runs on the connection's I/O thread and must not block there: it does its
     * quick work, hands the slow part on, and returns a stage that yields how to answer. Failures
     * of the stage are answered like exceptions of an {@link Endpoint}.
     */
    @FunctionalInterface
    interface NonBlockingEndpoint {
        CompletionStage<Answer> start(HttpServerExchange ex) throws Exception;
    }

    /** Writes the answer; runs on the connection's I/O thread. */
    @FunctionalInterface
    interface Answer {
        void write(HttpServerExchange ex) throws Exception;
    }

    /**
     * An endpoint and the role a caller needs for it; {@code role} null means open to everyone
     * (/health). {@code nonBlocking}, when present, serves the requests with small bodies.
     * {@code template} is the path as registered ({@code /v1/events/{id}}): a bounded label for metrics.
     * {@code bodyTypes}: the media types a request may declare in {@code Content-Type} (none for GET).
     */
    record Route(ApiKey.Role role, Endpoint endpoint, NonBlockingEndpoint nonBlocking, String template,
                 List<String> bodyTypes) {

        /**
         * Null when a request with this {@code Content-Type} may reach the endpoint, else its 415. A
         * request without one passes when it has no body (so a bodiless POST from a command line works);
         * a cross-site form always sends one ({@code text/plain}, a form encoding), which is refused.
         */
        ApiException refusedContentType(String contentType, boolean hasBody) {
            if (bodyTypes.isEmpty() || contentType == null && !hasBody
                    || contentType != null && bodyTypes.contains(FrontDoor.mediaType(contentType))) {
                return null;
            }
            return new ApiException(415, "the body must be " + String.join(" or ", bodyTypes)
                    + ": send Content-Type: " + bodyTypes.get(0));
        }
    }

    /** What a state-changing endpoint takes unless registered otherwise. */
    static final List<String> JSON_BODY = List.of("application/json");

    /** Where a request goes: the route and the path parameter, if the path has one. */
    record Match(Route route, String parameter) {
    }

    private final Map<String, Map<String, Route>> exact = new LinkedHashMap<>();
    private final Map<String, Map<String, Route>> prefixed = new LinkedHashMap<>();
    private final Map<String, Map<String, Route>> subtrees = new LinkedHashMap<>();

    /** Registers an endpoint that needs {@code role} (null: no authentication, only for /health). */
    Router add(String method, String path, ApiKey.Role role, Endpoint endpoint) {
        return add(method, path, role, endpoint, null);
    }

    /** Registers an endpoint with a non-blocking form for small bodies and the blocking one for the rest. */
    Router add(String method, String path, ApiKey.Role role, Endpoint endpoint, NonBlockingEndpoint nonBlocking) {
        return add(method, path, role, endpoint, nonBlocking,
                method.equals("GET") || method.equals("HEAD") ? List.of() : JSON_BODY);
    }

    /** Registers an endpoint whose requests may declare one of {@code bodyTypes} (any other is a 415). */
    Router add(String method, String path, ApiKey.Role role, Endpoint endpoint, NonBlockingEndpoint nonBlocking,
               List<String> bodyTypes) {
        Route route = new Route(role, endpoint, nonBlocking, path, List.copyOf(bodyTypes));
        if (path.endsWith("/{*}")) {
            subtrees.computeIfAbsent(path.substring(0, path.length() - 3), p -> new TreeMap<>()).put(method, route);
        } else if (path.endsWith("/{id}")) {
            prefixed.computeIfAbsent(path.substring(0, path.length() - 4), p -> new TreeMap<>()).put(method, route);
        } else {
            exact.computeIfAbsent(path, p -> new TreeMap<>()).put(method, route);
        }
        return this;
    }

    /** GETs need {@code read}; everything else is registered with its role explicitly. */
    Router get(String path, Endpoint endpoint) {
        return add("GET", path, ApiKey.Role.READ, endpoint);
    }

    /**
     * Every registered route as {@code "METHOD path"}, paths as registered ({@code /v1/events/{id}},
     * {@code /tile/{*}}): what the OpenAPI document must describe (checked by OpenApiContractIT).
     */
    List<String> routes() {
        List<String> all = new ArrayList<>();
        exact.forEach((path, methods) -> methods.keySet().forEach(m -> all.add(m + " " + path)));
        prefixed.forEach((prefix, methods) -> methods.keySet().forEach(m -> all.add(m + " " + prefix + "{id}")));
        subtrees.forEach((prefix, methods) -> methods.keySet().forEach(m -> all.add(m + " " + prefix + "{*}")));
        return all;
    }

    /** Finds the route for a request, or throws the 404 / 405 answer. */
    Match match(HttpServerExchange ex) throws ApiException {
        String path = ex.getRelativePath();
        Map<String, Route> methods = exact.get(path);
        String parameter = null;
        if (methods == null) {
            for (Map.Entry<String, Map<String, Route>> e : prefixed.entrySet()) {
                String prefix = e.getKey();
                if (path.startsWith(prefix) && path.length() > prefix.length() && path.indexOf('/', prefix.length()) < 0) {
                    methods = e.getValue();
                    parameter = path.substring(prefix.length());
                    break;
                }
            }
        }
        if (methods == null) {
            for (Map.Entry<String, Map<String, Route>> e : subtrees.entrySet()) {
                if (path.startsWith(e.getKey()) && path.length() > e.getKey().length()) {
                    methods = e.getValue();
                    parameter = path.substring(e.getKey().length());
                    break;
                }
            }
        }
        if (methods == null) {
            throw ApiException.notFound("no such endpoint: " + Params.shorten(path));
        }
        Route route = methods.get(ex.getRequestMethod().toString());
        if (route == null) {
            throw new ApiException(405, "method " + ex.getRequestMethod() + " is not allowed here; use "
                    + String.join(" or ", methods.keySet()), Map.of("Allow", String.join(", ", methods.keySet())));
        }
        return new Match(route, parameter);
    }
}
