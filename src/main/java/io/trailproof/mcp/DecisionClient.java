package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.shipping.HttpClientOnFirstUse;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

/**
 * Asks the service's gate (src/site/gates.md): {@code POST /v1/decisions} for a proposed call and
 * {@code GET /v1/decisions/{id}?wait=} for the state of an {@code ask}. Thread-safe. A proposal carries
 * an {@code Idempotency-Key} and is sent once more with it when no answer came, so a lost answer never
 * records two decisions.
 */
final class DecisionClient {

    /** The longest wait the service grants one long-poll request. */
    static final Duration MAX_WAIT_PER_REQUEST = Duration.ofSeconds(60);

    /** The gate could not be asked: unreachable, timed out, or 408, 429, 5xx. */
    static final class Unavailable extends Exception {
        Unavailable(String message) {
            super(message);
        }
    }

    /** The service refused the request for another reason (400, 401, 403, ...): never a reason to run unchecked. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** The first answer: {@code decision} is {@code allow}, {@code deny} or {@code ask}. */
    record Decision(String decisionId, String decision, String rule, String reason) {
    }

    private final String base;
    private final String apiKey;
    private final Duration timeout;
    private final ObjectMapper json;
    private final HttpClientOnFirstUse http;

    DecisionClient(URI server, String apiKey, Duration timeout, ObjectMapper json) {
        String s = server.toString();
        this.base = s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        this.apiKey = apiKey;
        this.timeout = timeout;
        this.json = json;
        this.http = new HttpClientOnFirstUse(timeout);
    }

    Decision decide(ObjectNode proposal) throws Unavailable, Refused, InterruptedException {
        byte[] body;
        try {
            body = json.writeValueAsBytes(proposal);
        } catch (IOException e) {
            throw new Refused("the proposal cannot be written as JSON: " + e.getMessage());
        }
        HttpRequest post = request("/v1/decisions", timeout)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString().replace("-", ""))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        JsonNode answer;
        try {
            answer = send(post);
        } catch (Unavailable noAnswer) {
            answer = send(post);
        }
        String id = answer.path("decision_id").asText("");
        String decision = answer.path("decision").asText("");
        if (id.isEmpty() || !(decision.equals("allow") || decision.equals("deny") || decision.equals("ask"))) {
            throw new Unavailable("the trailproof server's decision has no decision_id or an unknown decision");
        }
        return new Decision(id, decision, text(answer, "rule"), text(answer, "reason"));
    }

    /** The decision's state after waiting up to {@code wait} (at most {@link #MAX_WAIT_PER_REQUEST}) while pending. */
    String state(String decisionId, Duration wait) throws Unavailable, Refused, InterruptedException {
        long seconds = Math.max(0, Math.min(wait.toSeconds(), MAX_WAIT_PER_REQUEST.toSeconds()));
        String path = "/v1/decisions/" + URLEncoder.encode(decisionId, StandardCharsets.UTF_8)
                + (seconds > 0 ? "?wait=PT" + seconds + "S" : "");
        JsonNode answer = send(request(path, timeout.plusSeconds(seconds)).GET().build());
        String state = answer.path("state").asText("");
        if (state.isEmpty()) {
            throw new Unavailable("the trailproof server's answer about decision " + decisionId + " has no state");
        }
        return state;
    }

    private HttpRequest.Builder request(String path, Duration requestTimeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(requestTimeout);
        if (apiKey != null && !apiKey.isEmpty()) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        return b;
    }

    private JsonNode send(HttpRequest request) throws Unavailable, Refused, InterruptedException {
        HttpResponse<byte[]> response;
        try {
            response = http.get().send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new Unavailable("cannot reach the trailproof server at " + base + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        }
        int status = response.statusCode();
        JsonNode answer;
        try {
            answer = json.readTree(response.body());
        } catch (IOException e) {
            answer = null;
        }
        if (status == 200 || status == 201) {
            if (answer == null || !answer.isObject()) {
                throw new Unavailable("the trailproof server answered " + status + " with something that is not a JSON object");
            }
            return answer;
        }
        String message = "the trailproof server answered " + status
                + (answer != null && answer.path("error").isTextual() ? ": " + answer.get("error").asText() : "");
        if (status == 408 || status == 429 || status >= 500) {
            throw new Unavailable(message);
        }
        throw new Refused(message);
    }

    private static String text(JsonNode answer, String field) {
        JsonNode v = answer.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }
}
