package io.trailproof.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A small HTTP client for tests against a running server. */
public final class Api {

    public static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AnswerRecorder recorder;

    /** A client of the server on {@code port}; it records its answers when {@link AnswerRecorder#FILE_PROPERTY} is set. */
    public Api(int port) {
        this(port, AnswerRecorder.global());
    }

    private Api(int port, AnswerRecorder recorder) {
        this.base = "http://127.0.0.1:" + port;
        this.recorder = recorder;
    }

    /** A client of the same server that records every answer it receives into {@code recorder}. */
    public Api recordingTo(AnswerRecorder recorder) {
        return new Api(Integer.parseInt(base.substring(base.lastIndexOf(':') + 1)), recorder);
    }

    public record Reply(int status, String body, HttpResponse<String> raw) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (status " + status + "): " + body, e);
            }
        }

        public String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }
    }

    /** {@code http://127.0.0.1:PORT}, for requests built by hand. */
    public String base() {
        return base;
    }

    public Reply get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    public Reply post(String path, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /**
     * A POST with {@code Expect: 100-continue}, as a client sending a large body should: a body the server
     * refuses on its declared length is then never sent (without it, the close that follows such a 413 can
     * race the client's upload and reset the connection before the answer is read).
     */
    public Reply postExpectingContinue(String path, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).expectContinue(true)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    public Reply post(String path, byte[] body, String contentType) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        return send(b);
    }

    public Reply send(HttpRequest.Builder builder) throws IOException, InterruptedException {
        HttpRequest request = builder.timeout(Duration.ofSeconds(60)).build();
        HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (recorder != null) {
            recorder.record(request.method(), request.uri().getRawPath(), request.uri().getRawQuery(), r.statusCode(),
                    r.headers(), r.body());
        }
        return new Reply(r.statusCode(), r.body(), r);
    }
}
