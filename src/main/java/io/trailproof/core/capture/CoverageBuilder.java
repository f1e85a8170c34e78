package io.trailproof.core.capture;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.json.Rfc8785;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The coverage of one agent's events (src/site/completeness.md#coverage), built from its stored
 * events in chain order: per session, the events per capture path and action type, the gaps the
 * service recorded and whether later events filled them, the repeated capture numbers, and the
 * LLM calls seen by one path only when the agent's calls are seen both in its process and by the
 * LLM gateway. Pure: events in, JSON out.
 */
public final class CoverageBuilder {

    /** Two sightings of one LLM call are at most this far apart in {@code timestamp}. */
    public static final Duration MATCH_WINDOW = Duration.ofSeconds(60);
    /** {@code action_type} of a model call, as the gateway, the SDKs and OTLP record it. */
    public static final String LLM_CALL = "LLM_CALL";

    private static final String NO_SESSION = "\u0000";

    /** One stored copy of a capture number; {@code inWindow}: its event is in the requested window. */
    private record Sighting(String eventId, String session, boolean inWindow) {
    }

    private record Gap(String captureId, long from, long to, String eventId, String session, boolean inWindow) {
    }

    private record Call(String eventId, String session, String path, String model, String messages, long atMillis,
            boolean inWindow) {
    }

    private static final class Session {
        final Map<String, Map<String, Long>> paths = new TreeMap<>();
        final List<Gap> gaps = new ArrayList<>();
        final List<ObjectNode> duplicates = new ArrayList<>();
        final List<ObjectNode> onePathOnly = new ArrayList<>();
    }

    private final String agentId;
    private final Instant since;
    private final Instant until;
    private final Map<String, Session> sessions = new LinkedHashMap<>();
    /** Per capture id, per number, where it was seen (in the window or not). */
    private final Map<String, Map<Long, List<Sighting>>> seen = new HashMap<>();
    /** Every {@code GAP} event's ranges, in chain order; which of them the answer lists is decided at the end. */
    private final List<Gap> recordedGaps = new ArrayList<>();
    private final List<Call> calls = new ArrayList<>();

    /** The coverage of all of the agent's events. */
    public CoverageBuilder(String agentId) {
        this(agentId, null, null);
    }

    /**
     * The coverage of the agent's events with {@code timestamp} in {@code [since, until)} (either
     * bound may be null: open). Every event of the agent is still {@linkplain #add added}: those
     * outside the window are counted nowhere, but they decide what the window's events mean. A later
     * filler makes a gap {@code filled}; a copy outside the window makes a number in it a duplicate; a
     * gap whose neighbouring numbers are in the window is listed even when its {@code GAP} event was
     * recorded after the window's end; a call just outside the window can match one inside it.
     */
    public CoverageBuilder(String agentId, Instant since, Instant until) {
        this.agentId = agentId;
        this.since = since;
        this.until = until;
    }

    /** Adds one stored event of the agent (in chain order), whether in the window or not. */
    public void add(JsonNode e) {
        String id = e.path(ID).asText();
        String sessionKey = e.path(SESSION_ID).isTextual() ? e.get(SESSION_ID).textValue() : NO_SESSION;
        Instant at = instant(e);
        boolean inWindow = inWindow(at);
        String type = e.path(ACTION_TYPE).isTextual() ? e.get(ACTION_TYPE).textValue() : "";
        if (type.equals(GAP_ACTION_TYPE) && !e.has(CAPTURE_ID)) {
            if (inWindow) {
                session(sessionKey);
            }
            JsonNode out = e.path(ACTION_OUTPUT);
            String captureId = out.path("capture_id").asText(null);
            if (captureId != null) {
                for (JsonNode r : out.path("missing")) {
                    if (r.isArray() && r.size() == 2) {
                        recordedGaps.add(new Gap(captureId, r.get(0).asLong(), r.get(1).asLong(), id, sessionKey,
                                inWindow));
                    }
                }
            }
            return;
        }
        String path = CapturePaths.of(e.path(CAPTURE_METHOD).isTextual() ? e.get(CAPTURE_METHOD).textValue() : null);
        if (inWindow) {
            session(sessionKey).paths.computeIfAbsent(path, k -> new TreeMap<>()).merge(type, 1L, Long::sum);
        }
        if (e.path(CAPTURE_ID).isTextual() && e.path(CAPTURE_SEQ).canConvertToLong()) {
            seen.computeIfAbsent(e.get(CAPTURE_ID).textValue(), k -> new HashMap<>())
                    .computeIfAbsent(e.get(CAPTURE_SEQ).longValue(), k -> new ArrayList<>(1))
                    .add(new Sighting(id, sessionKey, inWindow));
        }
        if (type.equals(LLM_CALL) && (inWindow || at != null && nearWindow(at))) {
            calls.add(new Call(id, sessionKey, path, model(e), messagesHash(e.path(ACTION_INPUT)),
                    at == null ? 0 : at.toEpochMilli(), inWindow));
        }
    }

    private Session session(String key) {
        return sessions.computeIfAbsent(key, k -> new Session());
    }

    /** An event whose time cannot be read is in no window (every stored event has a readable one). */
    private boolean inWindow(Instant at) {
        if (since == null && until == null) {
            return true;
        }
        return at != null && (since == null || !at.isBefore(since)) && (until == null || at.isBefore(until));
    }

    /** Outside the window but close enough to match a call inside it. */
    private boolean nearWindow(Instant at) {
        return (since == null || !at.isBefore(since.minus(MATCH_WINDOW)))
                && (until == null || !at.isAfter(until.plus(MATCH_WINDOW)));
    }

    /** The coverage answer. */
    public ObjectNode build() {
        gaps();
        duplicates();
        crossCheck();
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("agent_id", agentId);
        ArrayNode list = root.putArray("sessions");
        for (Map.Entry<String, Session> en : sessions.entrySet()) {
            Session s = en.getValue();
            ObjectNode o = list.addObject();
            if (en.getKey().equals(NO_SESSION)) {
                o.putNull("session_id");
            } else {
                o.put("session_id", en.getKey());
            }
            ObjectNode paths = o.putObject("paths");
            for (Map.Entry<String, Map<String, Long>> p : s.paths.entrySet()) {
                ObjectNode types = paths.putObject(p.getKey());
                p.getValue().forEach(types::put);
            }
            ArrayNode gaps = o.putArray("gaps");
            for (Gap g : s.gaps) {
                ObjectNode go = gaps.addObject();
                go.put("capture_id", g.captureId());
                go.put("from", g.from());
                go.put("to", g.to());
                go.put("state", filled(g) ? "filled" : "open");
                go.put("gap_event_id", g.eventId());
            }
            ArrayNode dups = o.putArray("duplicates");
            s.duplicates.forEach(dups::add);
            ArrayNode one = o.putArray("one_path_only");
            s.onePathOnly.forEach(one::add);
        }
        return root;
    }

    /**
     * The recorded gaps of the window: those whose {@code GAP} event is in it, and those with a
     * neighbouring number (the one before the hole or the one after it) stored in it, whose
     * {@code GAP} may come up to {@code capture.gap-after} later.
     */
    private void gaps() {
        for (Gap g : recordedGaps) {
            if (g.inWindow() || seenInWindow(g.captureId(), g.from() - 1) || seenInWindow(g.captureId(), g.to() + 1)) {
                session(g.session()).gaps.add(g);
            }
        }
    }

    private boolean seenInWindow(String captureId, long number) {
        List<Sighting> at = seen.getOrDefault(captureId, Map.of()).get(number);
        return at != null && at.stream().anyMatch(Sighting::inWindow);
    }

    private boolean filled(Gap g) {
        Map<Long, List<Sighting>> numbers = seen.get(g.captureId());
        if (numbers == null || g.to() - g.from() >= numbers.size()) {
            return false;
        }
        for (long n = g.from(); n <= g.to(); n++) {
            if (!numbers.containsKey(n)) {
                return false;
            }
        }
        return true;
    }

    private void duplicates() {
        for (Map.Entry<String, Map<Long, List<Sighting>>> c : new TreeMap<>(seen).entrySet()) {
            for (Map.Entry<Long, List<Sighting>> n : new TreeMap<>(c.getValue()).entrySet()) {
                List<Sighting> at = n.getValue();
                Sighting first = at.stream().filter(Sighting::inWindow).findFirst().orElse(null);
                if (at.size() < 2 || first == null) {
                    continue;
                }
                ObjectNode d = JsonNodeFactory.instance.objectNode();
                d.put("capture_id", c.getKey());
                d.put("capture_seq", n.getKey());
                ArrayNode ids = d.putArray("event_ids");
                at.forEach(x -> ids.add(x.eventId()));
                session(first.session()).duplicates.add(d);
            }
        }
    }

    /**
     * Matches the gateway's calls with the in-process ones: same model, at most {@link #MATCH_WINDOW}
     * apart, and the same messages hash when both have messages; each sighting matches at most one,
     * the nearest in time first. Runs only when both sides saw calls of the agent. Calls just outside
     * the window take part, so that a call inside it is not reported for want of its counterpart
     * across the edge; only the window's own calls are listed.
     */
    private void crossCheck() {
        List<Call> gateway = new ArrayList<>();
        List<Call> inProcess = new ArrayList<>();
        for (Call c : calls) {
            if (c.path().equals(CapturePaths.LLM_GATEWAY)) {
                gateway.add(c);
            } else if (CapturePaths.inProcess(c.path())) {
                inProcess.add(c);
            }
        }
        if (gateway.isEmpty() || inProcess.isEmpty()) {
            return;
        }
        gateway.sort(Comparator.comparingLong(Call::atMillis));
        boolean[] used = new boolean[inProcess.size()];
        List<Call> unmatched = new ArrayList<>();
        long window = MATCH_WINDOW.toMillis();
        for (Call g : gateway) {
            int best = -1;
            long bestScore = Long.MAX_VALUE;
            for (int i = 0; i < inProcess.size(); i++) {
                Call a = inProcess.get(i);
                long dt = Math.abs(a.atMillis() - g.atMillis());
                if (used[i] || dt > window || !same(a.model(), g.model())) {
                    continue;
                }
                boolean bothHaveMessages = a.messages() != null && g.messages() != null;
                if (bothHaveMessages && !a.messages().equals(g.messages())) {
                    continue;
                }
                long score = dt + (bothHaveMessages ? 0 : window + 1);   // a messages match wins over a nearer guess
                if (score < bestScore) {
                    best = i;
                    bestScore = score;
                }
            }
            if (best < 0) {
                unmatched.add(g);
            } else {
                used[best] = true;
            }
        }
        for (int i = 0; i < inProcess.size(); i++) {
            if (!used[i]) {
                unmatched.add(inProcess.get(i));
            }
        }
        unmatched.sort(Comparator.comparingLong(Call::atMillis));
        for (Call c : unmatched) {
            if (!c.inWindow()) {
                continue;
            }
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("event_id", c.eventId());
            o.put("path", c.path());
            session(c.session()).onePathOnly.add(o);
        }
    }

    private static boolean same(String a, String b) {
        return a == null ? b == null : a.equals(b);
    }

    /** The model: {@code action_input.model}, else {@code metadata.model}, else OTLP's {@code gen_ai.request.model}. */
    static String model(JsonNode e) {
        JsonNode m = e.path(ACTION_INPUT).path("model");
        if (!m.isTextual()) {
            m = e.path(METADATA).path("model");
        }
        if (!m.isTextual()) {
            m = e.path(METADATA).path("otel").path("attributes").path("gen_ai.request.model");
        }
        return m.isTextual() ? m.textValue() : null;
    }

    /**
     * Lowercase hex SHA-256 of the RFC 8785 form of {@code messages} (Chat Completions, Anthropic
     * Messages), else of {@code input} (Responses API), of an LLM call's {@code action_input}; null
     * when it has neither.
     */
    public static String messagesHash(JsonNode actionInput) {
        JsonNode m = actionInput.path("messages");
        if (m.isMissingNode() || m.isNull()) {
            m = actionInput.path("input");
        }
        if (m.isMissingNode() || m.isNull()) {
            return null;
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Rfc8785.canonicalize(m)));
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** {@code timestamp}, else {@code recorded_at}; null when neither can be read. */
    private static Instant instant(JsonNode e) {
        JsonNode t = e.path(TIMESTAMP).isTextual() ? e.get(TIMESTAMP) : e.path(RECORDED_AT);
        try {
            return EventTime.parseTimestamp(t.asText());
        } catch (RuntimeException ex) {
            return null;
        }
    }
}
