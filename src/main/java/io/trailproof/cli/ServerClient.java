package io.trailproof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The CLI's HTTP client of a running server. Transport problems become a {@link ClientException}
 * whose message says what to check; non-2xx answers are returned for the command to explain.
 */
final class ServerClient {

    static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String apiKey;
    /** Built when first used: a command that talks to the server another way (backup) does not pay its start. */
    private HttpClient http;

    private synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        }
        return http;
    }

    String apiKey() {
        return apiKey;
    }

    URI base() {
        return base;
    }

    ServerClient(URI base, String apiKey) {
        this.base = base;
        this.apiKey = apiKey;
    }

    /** A server answer: status, body, and whether it replays an answer recorded for an {@code Idempotency-Key}. */
    record Answer(int status, byte[] body, boolean replayed) {
        Answer(int status, byte[] body) {
            this(status, body, false);
        }

        boolean ok() {
            return status / 100 == 2;
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        JsonNode json() throws ClientException {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new ClientException("the server answered " + status + " with something that is not JSON");
            }
        }

        /** The server's {@code {"error"}} sentence, or the status when there is none. */
        String error() {
            try {
                JsonNode n = JSON.readTree(body);
                if (n != null && n.hasNonNull("error")) {
                    return n.get("error").asText() + " (HTTP " + status + ")";
                }
            } catch (IOException ignored) {
                // not JSON: fall through to the status
            }
            return "HTTP " + status;
        }
    }

    /** The connection or the exchange failed; the message is for the person at the terminal. */
    static final class ClientException extends Exception {
        private final boolean mayHaveArrived;

        ClientException(String message) {
            this(message, false);
        }

        ClientException(String message, boolean mayHaveArrived) {
            super(message);
            this.mayHaveArrived = mayHaveArrived;
        }

        /**
         * True when the request may have reached the server before the exchange failed (a timeout,
         * a dropped connection), so that only an idempotent retry is safe; false when it never left.
         */
        boolean mayHaveArrived() {
            return mayHaveArrived;
        }
    }

    /** Builds {@code path?k=v&...}, skipping null values and encoding the rest. */
    static String path(String path, Map<String, String> query) {
        StringJoiner q = new StringJoiner("&");
        for (Map.Entry<String, String> e : query.entrySet()) {
            if (e.getValue() != null) {
                q.add(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
            }
        }
        return q.length() == 0 ? path : path + "?" + q;
    }

    static Map<String, String> query() {
        return new LinkedHashMap<>();
    }

    Answer get(String pathAndQuery) throws ClientException {
        return send(request(pathAndQuery).GET(), HttpResponse.BodyHandlers.ofByteArray());
    }

    Answer post(String path, byte[] json) throws ClientException {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json)), HttpResponse.BodyHandlers.ofByteArray());
    }

    Answer put(String path, byte[] json) throws ClientException {
        return send(request(path).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(json)), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A POST carrying an {@code Idempotency-Key} (src/site/ingestion.md#idempotency): safe to send again after any failure. */
    Answer post(String path, byte[] json, String idempotencyKey) throws ClientException {
        return send(request(path).header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(json)), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** A GET whose body is streamed to the caller (large answers such as exports). */
    HttpResponse<InputStream> stream(String pathAndQuery) throws ClientException {
        HttpRequest req = request(pathAndQuery).GET().build();
        try {
            return http().send(req, HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw transport(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted");
        }
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery)).timeout(Duration.ofMinutes(10));
        if (apiKey != null && !apiKey.isEmpty()) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        return b;
    }

    private <T> Answer send(HttpRequest.Builder builder, HttpResponse.BodyHandler<byte[]> handler) throws ClientException {
        try {
            HttpResponse<byte[]> r = http().send(builder.build(), handler);
            return new Answer(r.statusCode(), r.body(),
                    r.headers().firstValue("Idempotent-Replayed").map("true"::equals).orElse(false));
        } catch (IOException e) {
            throw transport(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted");
        }
    }

    /** A transport failure as the sentence for the person at the terminal. */
    ClientException transport(IOException e) {
        if (e instanceof ConnectException) {
            return new ClientException("cannot reach the trailproof server at " + base
                    + ": is it running? (set --server or TRAILPROOF_URL)");
        }
        if (e instanceof HttpTimeoutException) {
            return new ClientException("the server at " + base + " did not answer in time", true);
        }
        return new ClientException("talking to " + base + " failed: " + e.getMessage(), true);
    }
}
