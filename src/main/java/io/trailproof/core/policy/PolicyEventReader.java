package io.trailproof.core.policy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.IntactEvent;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.trailproof.core.event.EventFields.*;

/**
 * Reads the {@link PolicyEvent} facts out of a stored event's bytes with one streaming parse that
 * builds no tree, except for the top-level fields pattern rules read ({@code captureRoots}): reading
 * each stored event is most of a check's cost, and most of an event (inputs, outputs, metadata) is
 * skipped. The payload is trusted to be a stored event (ingestion validated it; the chain check
 * is what detects tampering); bytes that are not one are an {@link IllegalArgumentException}. One
 * reader per check: it keeps one instance of each agent id. Not thread-safe.
 */
public final class PolicyEventReader {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Set<String> captureRoots;
    /**
     * One instance of each agent id: every event's parse makes a new string, and rules keep an
     * event's agent for as long as it is pending. Grows with the number of agents, not events.
     * Concurrent: events may be read on several threads at once ({@link PolicyEngine#prepare}).
     */
    private final Map<String, String> agents = new java.util.concurrent.ConcurrentHashMap<>();

    public PolicyEventReader(Set<String> captureRoots) {
        this.captureRoots = Set.copyOf(captureRoots);
    }

    /** One parse's findings: the event, and its facts shown intact (null when not shown, or not asked for). */
    public record Read(PolicyEvent event, IntactEvent intact) {
    }

    /** Reads the event's facts (no hash check). */
    public PolicyEvent read(byte[] payload) {
        try (JsonParser p = MAPPER.getFactory().createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a stored event is not a JSON object");
            }
            Fields f = new Fields();
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case ID -> f.id = captureOr(f, name, p, value) ? f.captured.get(name).textValue() : text(p, value);
                    case AGENT_ID -> f.agentId = captureOr(f, name, p, value) ? f.captured.get(name).textValue() : text(p, value);
                    case SEQUENCE -> f.sequence = captureOr(f, name, p, value) ? f.captured.get(name).asLong(-1) : number(p, value);
                    case LOG_INDEX -> f.logIndex = captureOr(f, name, p, value) ? f.captured.get(name).asLong(-1) : number(p, value);
                    default -> f.member(name, p, value);
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw new IllegalArgumentException("a stored event is not a JSON object");
            }
            return f.build(payload);
        } catch (IOException e) {
            throw new IllegalArgumentException("a stored event is not readable JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the event and, in the same parse, checks that its bytes hash to its {@code hash}
     * ({@link IntactEvent#check}), for the chain check; when that is not shown, reads it again the
     * plain way and answers {@code intact} null (the chain check then explains, from the bytes).
     */
    public Read readIntact(byte[] payload) {
        Fields f = new Fields();
        Optional<IntactEvent> intact = IntactEvent.check(payload, f);
        if (intact.isEmpty()) {
            return new Read(read(payload), null);
        }
        IntactEvent e = intact.get();
        f.id = e.id();
        f.agentId = e.agentId();
        f.sequence = e.sequence();
        f.logIndex = e.logIndex();
        // The members the intact check reads itself never reach Fields: capture those a pattern reads here.
        for (String root : captureRoots) {
            JsonNode own = switch (root) {
                case ID -> TextNode.valueOf(e.id());
                case AGENT_ID -> TextNode.valueOf(e.agentId());
                case PREV_HASH -> TextNode.valueOf(e.prevHash());
                case HASH -> TextNode.valueOf(e.hash());
                case RECORDED_AT -> TextNode.valueOf(e.recordedAt());
                case SEQUENCE -> LongNode.valueOf(e.sequence());
                case LOG_INDEX -> LongNode.valueOf(e.logIndex());
                default -> null;
            };
            if (own != null) {
                f.capture(root, own);
            }
        }
        return new Read(f.build(payload), e);
    }

    /** Captures the member whole when a pattern rule reads it; true when it did (the value is consumed). */
    private boolean captureOr(Fields f, String name, JsonParser p, JsonToken value) throws IOException {
        if (captureRoots.isEmpty() || !captureRoots.contains(name)) {
            return false;
        }
        f.capture(name, MAPPER.readTree(p));
        return true;
    }

    /** The facts found so far in one parse; receives the members (other than the chain's own) one by one. */
    private final class Fields implements IntactEvent.OtherMembers {
        String id, agentId, sessionId, actionType, actionName, actionStatus, timestamp;
        long sequence = -1, logIndex = -1, durationMs = -1;
        Map<String, String> labels = Map.of();
        Map<String, JsonNode> captured = Map.of();

        void capture(String name, JsonNode tree) {
            if (captured.isEmpty()) {
                captured = new HashMap<>(4);
            }
            captured.put(name, tree);
        }

        @Override
        public void member(String name, JsonParser p, JsonToken value) throws IOException {
            if (captureOr(this, name, p, value)) {
                // The fields below are read from the tree when a pattern rule also wants them.
                JsonNode tree = captured.get(name);
                switch (name) {
                    case SESSION_ID -> sessionId = tree.textValue();
                    case ACTION_TYPE -> actionType = tree.textValue();
                    case ACTION_NAME -> actionName = tree.textValue();
                    case ACTION_STATUS -> actionStatus = tree.textValue();
                    case TIMESTAMP -> timestamp = tree.textValue();
                    case DURATION_MS -> durationMs = tree.asLong(-1);
                    case LABELS -> labels = labelsOf(tree);
                    default -> { }
                }
                return;
            }
            switch (name) {
                case SESSION_ID -> sessionId = text(p, value);
                case ACTION_TYPE -> actionType = text(p, value);
                case ACTION_NAME -> actionName = text(p, value);
                case ACTION_STATUS -> actionStatus = text(p, value);
                case TIMESTAMP -> timestamp = text(p, value);
                case DURATION_MS -> durationMs = number(p, value);
                case LABELS -> labels = labels(p, value);
                default -> p.skipChildren();
            }
        }

        PolicyEvent build(byte[] payload) {
            if (id == null || agentId == null || timestamp == null || sequence < 1 || logIndex < 0) {
                throw new IllegalArgumentException("a stored event lacks id, agent_id, timestamp, sequence or log_index");
            }
            String agent = agents.putIfAbsent(agentId, agentId);
            return new PolicyEvent(logIndex, id, agent != null ? agent : agentId, sessionId, sequence, actionType, actionName, actionStatus,
                    epochMicros(timestamp), durationMs, labels, captured, payload);
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
