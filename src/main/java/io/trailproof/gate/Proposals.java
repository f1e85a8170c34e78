package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.policy.PolicyEvent;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** A proposed event as the rules read it: the facts of a stored event, with its timestamp or the time it is decided. */
final class Proposals {

    private Proposals() {
    }

    static PolicyEvent asPolicyEvent(ObjectNode fields, Instant now) {
        Instant ts = now;
        JsonNode timestamp = fields.get(EventFields.TIMESTAMP);
        if (timestamp != null && timestamp.isTextual()) {
            ts = EventTime.parseTimestamp(timestamp.textValue());
        }
        Map<String, String> labels = new HashMap<>();
        JsonNode l = fields.get(EventFields.LABELS);
        if (l != null && l.isObject()) {
            l.properties().forEach(e -> labels.put(e.getKey(), e.getValue().asText()));
        }
        Map<String, JsonNode> captured = new HashMap<>();
        fields.properties().forEach(e -> captured.put(e.getKey(), e.getValue()));
        JsonNode duration = fields.get(EventFields.DURATION_MS);
        return new PolicyEvent(-1, null, fields.get(EventFields.AGENT_ID).asText(), text(fields, EventFields.SESSION_ID), 0,
                text(fields, EventFields.ACTION_TYPE), text(fields, EventFields.ACTION_NAME),
                text(fields, EventFields.ACTION_STATUS), ts.getEpochSecond() * 1_000_000L + ts.getNano() / 1_000,
                duration == null ? -1 : duration.asLong(-1), labels, captured, null);
    }

    private static String text(ObjectNode fields, String name) {
        JsonNode v = fields.get(name);
        return v == null || !v.isTextual() ? null : v.textValue();
    }
}
