package io.trailproof.http;

import io.trailproof.ledger.Ledger;
import io.undertow.server.HttpServerExchange;

import java.util.Deque;
import java.util.Locale;
import java.util.regex.Pattern;

/** Query parameters, checked the same way on every endpoint (src/site/http-api.md#conventions). */
final class Params {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    private static final Pattern DIGITS = Pattern.compile("\\+?[0-9]+");

    private final HttpServerExchange ex;

    Params(HttpServerExchange ex) {
        this.ex = ex;
    }

    /**
     * An event id as a client may write it: a UUID version 7 in either case (UUIDs are
     * case-insensitive, RFC 9562 section 4), returned in the lower case the service stores;
     * anything else is a 400 naming {@code what}.
     */
    static String eventId(String value, String what) throws ApiException {
        String id = value.toLowerCase(Locale.ROOT);
        if (!Ledger.wellFormedId(id)) {
            throw ApiException.badRequest(what + " must be a UUID version 7 such as "
                    + "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00");
        }
        return id;
    }

    /** The value, or null when absent. A parameter given twice is a 400: which one was meant is unclear. */
    String optional(String name) throws ApiException {
        Deque<String> values = ex.getQueryParameters().get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw ApiException.badRequest("parameter " + name + " is given more than once");
        }
        return values.getFirst();
    }

    String required(String name) throws ApiException {
        String v = optional(name);
        if (v == null || v.isEmpty()) {
            throw ApiException.badRequest("parameter " + name + " is required");
        }
        return v;
    }

    /** A whole number &ge; {@code min}, or {@code absent} when the parameter is not given. */
    long wholeNumber(String name, long min, long absent) throws ApiException {
        String v = optional(name);
        if (v == null) {
            return absent;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("parameter " + name + " must be a whole number, got '" + shorten(v) + "'");
        }
        if (n < min) {
            throw ApiException.badRequest("parameter " + name + " must be at least " + min + ", got " + n);
        }
        return n;
    }

    /**
     * {@code limit}: default 100, larger than 1000 treated as 1000 (also one too large for any
     * integer type), below 1 or not a whole number is 400.
     */
    int limit() throws ApiException {
        return (int) Math.min(MAX_LIMIT, saturated("limit", 1, DEFAULT_LIMIT));
    }

    /** {@code offset}: default 0; one too large for a long is past every end, like any offset beyond the last match. */
    long offset() throws ApiException {
        return saturated("offset", 0, 0);
    }

    /** As {@link #wholeNumber}, but a run of digits too long for a long is {@link Long#MAX_VALUE}, not a 400. */
    private long saturated(String name, long min, long absent) throws ApiException {
        String v = optional(name);
        if (v != null && DIGITS.matcher(v).matches()) {
            try {
                Long.parseLong(v);
            } catch (NumberFormatException e) {
                return Long.MAX_VALUE; // only digits, so too large: not a malformed number
            }
        }
        return wholeNumber(name, min, absent);
    }

    static String shorten(String v) {
        return v.length() > 64 ? v.substring(0, 64) + "..." : v;
    }
}
