package io.trailproof.core.policy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventTime;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import static io.trailproof.core.event.EventFields.*;

/**
 * Reads the {@link PolicyEvent} facts out of a stored event's bytes with one streaming parse that
 * builds no tree, except for the top-level fields pattern rules read ({@code captureRoots}): reading
 * each stored event is most of a check's cost, and most of an event (inputs, outputs, metadata) is
 * skipped. The payload is trusted to be a stored event (ingestion validated it; the chain check
 * is what detects tampering); bytes that are not one are an {@link IllegalArgumentException}.
 */
public final class PolicyEventReader {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Set<String> captureRoots;

    public PolicyEventReader(Set<String> captureRoots) {
        this.captureRoots = Set.copyOf(captureRoots);
    }

    public PolicyEvent read(byte[] payload) {
        try (JsonParser p = MAPPER.getFactory().createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a stored event is not a JSON object");
            }
            String id = null, agentId = null, sessionId = null, actionType = null, actionName = null;
            String actionStatus = null, timestamp = null;
            long sequence = -1, logIndex = -1, durationMs = -1;
            Map<String, String> labels = Map.of();
            Map<String, JsonNode> captured = Map.of();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (!captureRoots.isEmpty() && captureRoots.contains(name)) {
                    JsonNode tree = p.readValueAsTree();
                    if (captured.isEmpty()) {
                        captured = new HashMap<>(4);
                    }
                    captured.put(name, tree);
                    // The fields below are read from the tree when a pattern rule also wants them.
                    switch (name) {
                        case ID -> id = tree.textValue();
                        case AGENT_ID -> agentId = tree.textValue();
                        case SESSION_ID -> sessionId = tree.textValue();
                        case ACTION_TYPE -> actionType = tree.textValue();
                        case ACTION_NAME -> actionName = tree.textValue();
                        case ACTION_STATUS -> actionStatus = tree.textValue();
                        case TIMESTAMP -> timestamp = tree.textValue();
                        case SEQUENCE -> sequence = tree.asLong(-1);
                        case LOG_INDEX -> logIndex = tree.asLong(-1);
                        case DURATION_MS -> durationMs = tree.asLong(-1);
                        case LABELS -> labels = labelsOf(tree);
                        default -> { }
                    }
                    continue;
                }
                switch (name) {
                    case ID -> id = text(p, value);
                    case AGENT_ID -> agentId = text(p, value);
                    case SESSION_ID -> sessionId = text(p, value);
                    case ACTION_TYPE -> actionType = text(p, value);
                    case ACTION_NAME -> actionName = text(p, value);
                    case ACTION_STATUS -> actionStatus = text(p, value);
                    case TIMESTAMP -> timestamp = text(p, value);
                    case SEQUENCE -> sequence = number(p, value);
                    case LOG_INDEX -> logIndex = number(p, value);
                    case DURATION_MS -> durationMs = number(p, value);
                    case LABELS -> labels = labels(p, value);
                    default -> p.skipChildren();
                }
            }
            if (id == null || agentId == null || timestamp == null || sequence < 1 || logIndex < 0) {
                throw new IllegalArgumentException("a stored event lacks id, agent_id, timestamp, sequence or log_index");
            }
            return new PolicyEvent(logIndex, id, agentId, sessionId, sequence, actionType, actionName, actionStatus,
                    epochMicros(timestamp), durationMs, labels, captured, payload);
        } catch (IOException e) {
            throw new IllegalArgumentException("a stored event is not readable JSON: " + e.getMessage(), e);
        }
    }

    private static String text(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_STRING) {
            return p.getText();
        }
        p.skipChildren();
        return null;
    }

    private static long number(JsonParser p, JsonToken t) throws IOException {
        if (t == JsonToken.VALUE_NUMBER_INT) {
            return p.getLongValue();
        }
        if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            return (long) p.getDoubleValue(); // RFC 8785 writes 1e+21 and up this way
        }
        p.skipChildren();
        return -1;
    }

    private static Map<String, String> labels(JsonParser p, JsonToken t) throws IOException {
        if (t != JsonToken.START_OBJECT) {
            p.skipChildren();
            return Map.of();
        }
        Map<String, String> out = new HashMap<>(4);
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            String v = text(p, p.nextToken());
            if (v != null) {
                out.put(key, v);
            }
        }
        return out;
    }

    private static Map<String, String> labelsOf(JsonNode tree) {
        Map<String, String> out = new HashMap<>(4);
        tree.fields().forEachRemaining(e -> {
            if (e.getValue().isTextual()) {
                out.put(e.getKey(), e.getValue().textValue());
            }
        });
        return out;
    }

    /**
     * Microseconds since the epoch of a stored {@code timestamp}. The common form
     * ({@code 2026-01-31T09:00:00[.ffffff][Z|+hh:mm]}) is read by hand, as this runs once per event;
     * every other accepted form goes through {@link EventTime#parseTimestamp}, which defines them.
     */
    static long epochMicros(String t) {
        int n = t.length();
        if (n >= 19 && digits(t, 0, 4) && t.charAt(4) == '-' && digits(t, 5, 7) && t.charAt(7) == '-'
                && digits(t, 8, 10) && t.charAt(10) == 'T' && digits(t, 11, 13) && t.charAt(13) == ':'
                && digits(t, 14, 16) && t.charAt(16) == ':' && digits(t, 17, 19)) {
            int i = 19;
            long micros = 0;
            int fractionDigits = 0;
            if (i < n && t.charAt(i) == '.') {
                i++;
                while (i < n && Character.isDigit(t.charAt(i)) && fractionDigits < 9) {
                    if (fractionDigits < 6) {
                        micros = micros * 10 + (t.charAt(i) - '0');
                    }
                    fractionDigits++;
                    i++;
                }
                if (fractionDigits == 0) {
                    i = -1;
                }
                for (int k = fractionDigits; k < 6; k++) {
                    micros *= 10;
                }
            }
            long offsetSeconds = Long.MIN_VALUE;
            if (i == n || i == n - 1 && t.charAt(i) == 'Z') {
                offsetSeconds = 0;
            } else if (i == n - 6 && (t.charAt(i) == '+' || t.charAt(i) == '-') && digits(t, i + 1, i + 3)
                    && t.charAt(i + 3) == ':' && digits(t, i + 4, i + 6)) {
                long off = num(t, i + 1, i + 3) * 3600 + num(t, i + 4, i + 6) * 60;
                offsetSeconds = t.charAt(i) == '-' ? -off : off;
            }
            if (offsetSeconds != Long.MIN_VALUE) {
                long days = daysFromCivil(num(t, 0, 4), num(t, 5, 7), num(t, 8, 10));
                long seconds = days * 86_400 + num(t, 11, 13) * 3600 + num(t, 14, 16) * 60 + num(t, 17, 19)
                        - offsetSeconds;
                return seconds * 1_000_000 + micros;
            }
        }
        java.time.Instant at = EventTime.parseTimestamp(t);
        return at.getEpochSecond() * 1_000_000 + at.getNano() / 1_000;
    }

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static long num(String s, int from, int to) {
        long v = 0;
        for (int i = from; i < to; i++) {
            v = v * 10 + (s.charAt(i) - '0');
        }
        return v;
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
    private static long daysFromCivil(long y, long m, long d) {
        y -= m <= 2 ? 1 : 0;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097 + doe - 719_468;
    }
}
