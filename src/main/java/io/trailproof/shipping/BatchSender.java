package io.trailproof.shipping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Sends one batch to {@code POST /v1/batch} under its {@code Idempotency-Key}
 * (src/site/ingestion.md#idempotency) and says what became of it. It never retries by itself: the
 * shipper decides when to try again, always with the same key and body, so a batch whose answer was
 * lost is stored at most once.
 */
public final class BatchSender {

    /** What became of one try. */
    sealed interface Outcome {
    }

    /** 201 or 207: every item is stored or refused; {@code items} is the answer's per-item array. */
    record Stored(JsonNode items) implements Outcome {
    }

    /**
     * The batch was not stored now but may be later: the service is unreachable, busy, shutting down,
     * or refuses the API key (which a person can fix). The batch stays spooled.
     */
    record NotNow(String reason) implements Outcome {
    }

    /** The service refuses this batch as a whole and would refuse it again (400, 413, 422). */
    record Refused(String reason) implements Outcome {
    }

    private final URI batchUri;
    private final String apiKey;
    private final Duration timeout;
    private final ObjectMapper json;
    private final HttpClientOnFirstUse http;

    public BatchSender(URI server, String apiKey, Duration timeout, ObjectMapper json) {
        String base = server.toString();
        this.batchUri = URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/batch");
        this.apiKey = apiKey;
        this.timeout = timeout;
        this.json = json;
        this.http = new HttpClientOnFirstUse(timeout);
    }

    Outcome send(String idempotencyKey, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(batchUri).timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (apiKey != null && !apiKey.isEmpty()) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<byte[]> response;
        try {
            response = http.get().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException e) {
            return new NotNow("cannot reach the trailproof server at " + batchUri.resolve("/"));
        } catch (IOException e) {
            return new NotNow("talking to the trailproof server at " + batchUri.resolve("/") + " failed ("
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new NotNow("interrupted");
        }
        int status = response.statusCode();
        if (status == 201 || status == 207) {
            try {
                JsonNode items = json.readTree(response.body());
                if (items != null && items.isArray()) {
                    return new Stored(items);
                }
            } catch (IOException e) {
                // fall through: an answer we cannot read is treated as not stored, and sent again
            }
            return new NotNow("the trailproof server answered " + status + " with something that is not a batch answer");
        }
        String reason = error(status, response.body());
        if (status == 400 || status == 413 || status == 422) {
            return new Refused(reason);
        }
        return new NotNow(reason);
    }

    private String error(int status, byte[] body) {
        try {
            JsonNode n = json.readTree(body);
            if (n != null && n.path("error").isTextual()) {
                return "the trailproof server answered " + status + ": " + n.get("error").asText();
            }
        } catch (IOException ignored) {
            // not JSON
        }
        return "the trailproof server answered " + status;
    }
}
