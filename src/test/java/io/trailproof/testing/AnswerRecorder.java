package io.trailproof.testing;

import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Records the answers a test receives at the HTTP level (method, path, status, content type,
 * headers, body), so that they can be checked afterwards against the OpenAPI document
 * (OpenApiContractIT). Enabled per client: {@link Api#recordingTo}. Answers read by other clients
 * (an SSE stream, a WebSocket upgrade) are added with {@link #record}. Thread-safe.
 */
public final class AnswerRecorder {

    /** One answer; {@code path} without the query, {@code contentType} null when the answer had none. */
    public record Answer(String method, String path, String query, int status, String contentType,
                         Map<String, List<String>> headers, String body) {

        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        @Override
        public String toString() {
            return method + " " + path + (query == null ? "" : "?" + query) + " -> " + status;
        }
    }

    private final List<Answer> answers = new ArrayList<>();

    public synchronized void record(String method, String path, String query, int status, HttpHeaders headers,
                                    String body) {
        Map<String, List<String>> lower = new TreeMap<>();
        headers.map().forEach((k, v) -> lower.put(k.toLowerCase(java.util.Locale.ROOT), List.copyOf(v)));
        answers.add(new Answer(method, path, query, status, headers.firstValue("Content-Type").orElse(null),
                lower, body));
    }

    public synchronized List<Answer> answers() {
        return List.copyOf(answers);
    }
}
