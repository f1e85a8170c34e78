package io.trailproof.http;

import java.util.Map;

/** An answer other than 2xx with the one sentence a person can act on (src/site/http-api.md#conventions). */
public final class ApiException extends Exception {
    private final int status;
    private final Map<String, String> headers;

    public ApiException(int status, String message) {
        this(status, message, Map.of());
    }

    public ApiException(int status, String message, Map<String, String> headers) {
        super(message, null, false, false);
        this.status = status;
        this.headers = headers;
    }

    public int status() {
        return status;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public static ApiException badRequest(String message) {
        return new ApiException(400, message);
    }

    public static ApiException notFound(String message) {
        return new ApiException(404, message);
    }
}
