package io.trailproof.core.policy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A trail of real stored events (validated, sealed and chained as the ledger does) built in memory
 * for the policy tests: each {@link #add} appends one event at the next log index.
 */
final class Trail {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<byte[]> payloads = new ArrayList<>();
    private final List<String> ids = new ArrayList<>();
    private final Map<String, long[]> sequences = new HashMap<>();
    private final Map<String, String> heads = new HashMap<>();

    /** Appends an event given as client JSON (with {@code agent_id}); returns its id. */
    String add(String clientJson) {
        try {
            ObjectNode fields = EventValidator.validate(JSON.readTree(clientJson));
            String agent = fields.get("agent_id").textValue();
            long sequence = ++sequences.computeIfAbsent(agent, a -> new long[1])[0];
            String id = String.format("00000000-0000-7000-8000-%012d", payloads.size());
            String recordedAt = "2026-01-05T00:00:00." + String.format("%06d", payloads.size()) + "Z";
            StoredEvent e = StoredEvent.seal(fields, id, recordedAt, sequence,
                    heads.getOrDefault(agent, EventFields.GENESIS_PREV_HASH), payloads.size());
            heads.put(agent, e.hash());
            payloads.add(e.payload());
            ids.add(id);
            return id;
        } catch (Exception e) {
            throw new IllegalArgumentException(clientJson, e);
        }
    }

    /** Shorthand for the usual event: agent, session (or null), type, name, timestamp, extra fields (JSON members or ""). */
    String add(String agent, String session, String type, String name, String timestamp, String extra) {
        StringBuilder b = new StringBuilder("{\"agent_id\":\"" + agent + "\"");
        if (session != null) {
            b.append(",\"session_id\":\"").append(session).append('"');
        }
        if (type != null) {
            b.append(",\"action_type\":\"").append(type).append('"');
        }
        if (name != null) {
            b.append(",\"action_name\":\"").append(name).append('"');
        }
        b.append(",\"timestamp\":\"").append(timestamp).append('"');
        if (!extra.isEmpty()) {
            b.append(',').append(extra);
        }
        return add(b.append('}').toString());
    }

    /** Replaces {@code from} by {@code to} in the stored bytes at {@code index}: an edit behind the ledger's back. */
    void tamper(int index, String from, String to) {
        String s = new String(payloads.get(index), StandardCharsets.UTF_8);
        if (!s.contains(from)) {
            throw new IllegalArgumentException(from);
        }
        payloads.set(index, s.replace(from, to).getBytes(StandardCharsets.UTF_8));
    }

    String id(int index) {
        return ids.get(index);
    }

    List<byte[]> payloads() {
        return payloads;
    }

    PolicyReport check(List<Policy> policies, String agentId, String since, String until) {
        PolicyEngine engine = new PolicyEngine(policies, agentId, since == null ? null : Instant.parse(since),
                until == null ? null : Instant.parse(until), null);
        for (int i = 0; i < payloads.size(); i++) {
            engine.accept(i, payloads.get(i));
        }
        return engine.finish();
    }

    PolicyReport check(List<Policy> policies) {
        return check(policies, null, null, null);
    }
}
