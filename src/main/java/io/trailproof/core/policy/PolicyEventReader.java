package io.trailproof.core.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.event.MemberScanner;

import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.trailproof.core.event.EventFields.*;

/**
 * Reads the {@link PolicyEvent} facts out of a stored event's bytes in one pass of a
 * {@link MemberScanner} that builds nothing, except for the top-level fields pattern rules read
 * ({@code captureRoots}), which are parsed whole: reading
 * each stored event is most of a check's cost, and most of an event (inputs, outputs, metadata) is
 * skipped. The payload is trusted to be a stored event (ingestion validated it; the chain check
 * is what detects tampering); bytes that are not one are an {@link IllegalArgumentException}. One
 * reader per check: it keeps one instance of each agent id. Not thread-safe.
 */
public final class PolicyEventReader {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Set<String> captureRoots;
    /** Whether every root is ASCII, so that a member's name can be compared as bytes. */
    private final boolean asciiRoots;
    /**
     * One instance of each agent id: every event's parse makes a new string, and rules keep an
     * event's agent for as long as it is pending. Grows with the number of agents, not events.
     * Concurrent: events may be read on several threads at once ({@link PolicyEngine#prepare}).
     */
    private final Map<String, String> agents = new ConcurrentHashMap<>();

    public PolicyEventReader(Set<String> captureRoots) {
        this.captureRoots = Set.copyOf(captureRoots);
        this.asciiRoots = this.captureRoots.stream().allMatch(r -> r.chars().allMatch(c -> c < 0x80));
    }

    /** One parse's findings: the event, and its facts shown intact (null when not shown, or not asked for). */
    public record Read(PolicyEvent event, IntactEvent intact) {
    }

    /** Reads the event's facts (no hash check). */
    public PolicyEvent read(byte[] payload) {
        Fields f = new Fields(payload);
        MemberScanner m = new MemberScanner(payload);
        while (m.next()) {
            if (m.nameIs(ID)) {
                f.id = f.captureOr(m) ? f.captured.get(ID).textValue() : m.stringValue();
            } else if (m.nameIs(AGENT_ID)) {
                f.agentId = f.captureOr(m) ? f.captured.get(AGENT_ID).textValue() : m.stringValue();
            } else if (m.nameIs(SEQUENCE)) {
                f.sequence = f.captureOr(m) ? f.captured.get(SEQUENCE).asLong(-1) : number(m);
            } else if (m.nameIs(LOG_INDEX)) {
                f.logIndex = f.captureOr(m) ? f.captured.get(LOG_INDEX).asLong(-1) : number(m);
            } else {
                f.member(m);
            }
        }
        return f.build();
    }

    /**
     * Reads the event and, in the same pass, checks that its bytes hash to its {@code hash}
     * ({@link IntactEvent#check}), for the chain check; when that is not shown, reads it again the
     * plain way and answers {@code intact} null (the chain check then explains, from the bytes).
     */
    public Read readIntact(byte[] payload) {
        Fields f = new Fields(payload);
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
        return new Read(f.build(), e);
    }

    /** The facts found so far in one pass; receives the members (other than the chain's own) one by one. */
    private final class Fields implements IntactEvent.OtherMembers {
        final byte[] payload;
        String id, agentId, sessionId, actionType, actionName, actionStatus, timestamp;
        long sequence = -1, logIndex = -1, durationMs = -1;
        Map<String, String> labels = Map.of();
        Map<String, JsonNode> captured = Map.of();

        Fields(byte[] payload) {
            this.payload = payload;
        }

        void capture(String name, JsonNode tree) {
            if (captured.isEmpty()) {
                captured = new HashMap<>(4);
            }
            captured.put(name, tree);
        }

        /**
         * The root this member is, compared as bytes (decoding every member's name into a String cost
         * an allocation per member of every event); null when it is none.
         */
        private String root(MemberScanner m) {
            for (String root : captureRoots) {
                if (m.nameIs(root)) {
                    return root;
                }
            }
            return null;
        }

        /** Captures the member whole when a pattern rule reads it; true when it did. */
        boolean captureOr(MemberScanner m) {
            if (captureRoots.isEmpty()) {
                return false;
            }
            String name = asciiRoots ? root(m) : m.name();
            if (name == null || !captureRoots.contains(name)) {
                return false;
            }
            try {
                capture(name, MAPPER.readTree(payload, m.valueStart(), m.valueEnd() - m.valueStart()));
            } catch (IOException e) {
                throw new IllegalArgumentException("a stored event is not readable JSON: " + e.getMessage(), e);
            }
            return true;
        }

        @Override
        public void member(MemberScanner m) {
            if (captureOr(m)) {
                // The fields below are read from the tree when a pattern rule also wants them.
                JsonNode tree = captured.get(m.name());
                if (m.nameIs(SESSION_ID)) {
                    sessionId = tree.textValue();
                } else if (m.nameIs(ACTION_TYPE)) {
                    actionType = tree.textValue();
                } else if (m.nameIs(ACTION_NAME)) {
                    actionName = tree.textValue();
                } else if (m.nameIs(ACTION_STATUS)) {
                    actionStatus = tree.textValue();
                } else if (m.nameIs(TIMESTAMP)) {
                    timestamp = tree.textValue();
                } else if (m.nameIs(DURATION_MS)) {
                    durationMs = tree.asLong(-1);
                } else if (m.nameIs(LABELS)) {
                    labels = labelsOf(tree);
                }
                return;
            }
            if (m.nameIs(SESSION_ID)) {
                sessionId = m.stringValue();
            } else if (m.nameIs(ACTION_TYPE)) {
                actionType = m.stringValue();
            } else if (m.nameIs(ACTION_NAME)) {
                actionName = m.stringValue();
            } else if (m.nameIs(ACTION_STATUS)) {
                actionStatus = m.stringValue();
            } else if (m.nameIs(TIMESTAMP)) {
                timestamp = m.stringValue();
            } else if (m.nameIs(DURATION_MS)) {
                durationMs = number(m);
            } else if (m.nameIs(LABELS)) {
                labels = labels(m);
            }
        }

        PolicyEvent build() {
            if (id == null || agentId == null || timestamp == null || sequence < 1 || logIndex < 0) {
                throw new IllegalArgumentException("a stored event lacks id, agent_id, timestamp, sequence or log_index");
            }
            String agent = agents.get(agentId);
            if (agent == null) {
                agent = agents.putIfAbsent(agentId, agentId);
            }
            return new PolicyEvent(logIndex, id, agent != null ? agent : agentId, sessionId, sequence, actionType, actionName,
                    actionStatus, epochMicros(timestamp), durationMs, labels, captured, payload);
        }
    }

    /** A number as a long: plain integers exactly, others (RFC 8785 writes 1e+21 and up so) truncated; -1 for a non-number. */
    private static long number(MemberScanner m) {
        if (m.kind() != MemberScanner.Kind.NUMBER) {
            return -1;
        }
        long v = m.integerValue();
        return v != Long.MIN_VALUE ? v : (long) m.doubleValue();
    }

    /** The string members of a {@code labels} object (labels are strings; anything else is left out). */
    private static Map<String, String> labels(MemberScanner m) {
        if (m.kind() != MemberScanner.Kind.OBJECT) {
            return Map.of();
        }
        Map<String, String> out = new HashMap<>(4);
        MemberScanner inner = m.objectValue();
        while (inner.next()) {
            String v = inner.stringValue();
            if (v != null) {
                out.put(inner.name(), v);
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
        Instant at = EventTime.parseTimestamp(t);
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
