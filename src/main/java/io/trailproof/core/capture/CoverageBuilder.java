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

    private record Sighting(String eventId, String session) {
    }

    private record Gap(String captureId, long from, long to, String eventId) {
    }

    private record Call(String eventId, String session, String path, String model, String messages, long atMillis) {
    }

    private static final class Session {
        final Map<String, Map<String, Long>> paths = new TreeMap<>();
        final List<Gap> gaps = new ArrayList<>();
        final List<ObjectNode> duplicates = new ArrayList<>();
        final List<ObjectNode> onePathOnly = new ArrayList<>();
    }

    private final String agentId;
    private final Map<String, Session> sessions = new LinkedHashMap<>();
    /** Per capture id, per number, where it was seen. */
    private final Map<String, Map<Long, List<Sighting>>> seen = new HashMap<>();
    private final List<Call> calls = new ArrayList<>();

    public CoverageBuilder(String agentId) {
        this.agentId = agentId;
    }

    /** Adds one stored event of the agent (in chain order). */
    public void add(JsonNode e) {
        String id = e.path(ID).asText();
        String sessionKey = e.path(SESSION_ID).isTextual() ? e.get(SESSION_ID).textValue() : NO_SESSION;
        Session s = sessions.computeIfAbsent(sessionKey, k -> new Session());
        String type = e.path(ACTION_TYPE).isTextual() ? e.get(ACTION_TYPE).textValue() : "";
        if (type.equals(GAP_ACTION_TYPE) && !e.has(CAPTURE_ID)) {
            JsonNode out = e.path(ACTION_OUTPUT);
            String captureId = out.path("capture_id").asText(null);
            if (captureId != null) {
                for (JsonNode r : out.path("missing")) {
                    if (r.isArray() && r.size() == 2) {
                        s.gaps.add(new Gap(captureId, r.get(0).asLong(), r.get(1).asLong(), id));
                    }
                }
            }
            return;
        }
        String path = CapturePaths.of(e.path(CAPTURE_METHOD).isTextual() ? e.get(CAPTURE_METHOD).textValue() : null);
        s.paths.computeIfAbsent(path, k -> new TreeMap<>()).merge(type, 1L, Long::sum);
        if (e.path(CAPTURE_ID).isTextual() && e.path(CAPTURE_SEQ).canConvertToLong()) {
            seen.computeIfAbsent(e.get(CAPTURE_ID).textValue(), k -> new HashMap<>())
                    .computeIfAbsent(e.get(CAPTURE_SEQ).longValue(), k -> new ArrayList<>(1))
                    .add(new Sighting(id, sessionKey));
        }
        if (type.equals(LLM_CALL)) {
            calls.add(new Call(id, sessionKey, path, model(e), messagesHash(e.path(ACTION_INPUT)), millis(e)));
        }
    }

    /** The coverage answer. */
    public ObjectNode build() {
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
                if (at.size() < 2) {
                    continue;
                }
                ObjectNode d = JsonNodeFactory.instance.objectNode();
                d.put("capture_id", c.getKey());
                d.put("capture_seq", n.getKey());
                ArrayNode ids = d.putArray("event_ids");
                at.forEach(x -> ids.add(x.eventId()));
                sessions.get(at.get(0).session()).duplicates.add(d);
            }
        }
    }

    /**
     * Matches the gateway's calls with the in-process ones: same model, at most {@link #MATCH_WINDOW}
     * apart, and the same messages hash when both have messages; each sighting matches at most one,
     * the nearest in time first. Runs only when both sides saw calls of the agent.
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
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("event_id", c.eventId());
            o.put("path", c.path());
            sessions.get(c.session()).onePathOnly.add(o);
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

    private static long millis(JsonNode e) {
        JsonNode t = e.path(TIMESTAMP).isTextual() ? e.get(TIMESTAMP) : e.path(RECORDED_AT);
        try {
            return EventTime.parseTimestamp(t.asText()).toEpochMilli();
        } catch (RuntimeException ex) {
            return 0;
        }
    }
}
