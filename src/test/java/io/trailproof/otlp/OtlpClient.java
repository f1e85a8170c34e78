package io.trailproof.otlp;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Raw OTLP/HTTP requests to a running server, answers as bytes (a protobuf answer is no text). */
final class OtlpClient {

    record Answer(int status, byte[] body, String contentType, HttpResponse<byte[]> raw) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpClient client = HttpClient.newHttpClient();
    private final String base;
    private final String key;

    OtlpClient(int port, String key) {
        this.base = "http://127.0.0.1:" + port;
        this.key = key;
    }

    Answer post(byte[] body, String contentType, String contentEncoding) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v1/traces"))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        if (contentEncoding != null) {
            b.header("Content-Encoding", contentEncoding);
        }
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(null), r);
    }

    Answer protobuf(byte[] body) throws Exception {
        return post(body, "application/x-protobuf", null);
    }

    Answer json(String body) throws Exception {
        return post(body.getBytes(StandardCharsets.UTF_8), "application/json", null);
    }
}
