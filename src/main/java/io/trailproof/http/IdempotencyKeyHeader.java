package io.trailproof.http;

import io.undertow.util.HeaderValues;

/**
 * The {@code Idempotency-Key} request header (src/site/ingestion.md#idempotency): 1 to 255 characters from {@code !} to
 * {@code ~} (ASCII 0x21-0x7E), optionally as a quoted string ({@code "abc"} is the key {@code abc}).
 * Anything else, and the header sent more than once, is a 400 that names the rule.
 */
final class IdempotencyKeyHeader {

    static final String NAME = "Idempotency-Key";
    static final int MAX_LENGTH = 255;

    private IdempotencyKeyHeader() {
    }

    /** The key, or null when the request has no such header. */
    static String parse(HeaderValues values) throws ApiException {
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw ApiException.badRequest("send the Idempotency-Key header once; it was sent " + values.size() + " times");
        }
        return parse(values.getFirst());
    }

    static String parse(String value) throws ApiException {
        String key = value;
        if (key.length() >= 2 && key.charAt(0) == '"' && key.charAt(key.length() - 1) == '"') {
            key = key.substring(1, key.length() - 1);
        } else if (key.startsWith("\"")) {
            throw invalid("it opens a quoted string that is not closed");
        }
        if (key.isEmpty()) {
            throw invalid("it is empty");
        }
        if (key.length() > MAX_LENGTH) {
            throw invalid("it has " + key.length() + " characters");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw invalid("character " + (i + 1) + " is " + (c == ' ' ? "a space" : String.format("U+%04X", (int) c)));
            }
        }
        return key;
    }

    private static ApiException invalid(String why) {
        return ApiException.badRequest("the Idempotency-Key header must be 1 to " + MAX_LENGTH
                + " characters from '!' to '~' (ASCII 0x21-0x7E), optionally in double quotes; " + why);
    }
}
