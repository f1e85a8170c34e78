package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventTime;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Optional members of a JSON request body that several endpoints read the same way (policy checks,
 * erasures): absent and {@code null} mean "not given"; anything else must be well formed, or the
 * request is a 400 naming the member (src/site/http-api.md#errors).
 */
final class BodyMembers {

    private BodyMembers() {
    }

    /** A non-empty string, or null when absent. */
    static String text(JsonNode body, String key) throws ApiException {
        JsonNode v = body.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual() || v.textValue().isEmpty()) {
            throw ApiException.badRequest(key + " must be a non-empty string");
        }
        return v.textValue();
    }

    /** An ISO 8601 date-time as events' {@code timestamp} takes it, or null when absent. */
    static Instant time(JsonNode body, String key) throws ApiException {
        String value = text(body, key);
        if (value == null) {
            return null;
        }
        try {
            return EventTime.parseTimestamp(value);
        } catch (DateTimeParseException e) {
            throw ApiException.badRequest(key + " must be an ISO 8601 date-time such as 2026-01-31T09:00:00Z, got '"
                    + Params.shorten(value) + "'");
        }
    }
}
