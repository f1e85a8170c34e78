package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.policy.PolicyEvent;

import java.time.Instant;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

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
        Map<String, JsonNode> captured = new FieldsView(fields);
        JsonNode duration = fields.get(EventFields.DURATION_MS);
        return new PolicyEvent(-1, null, fields.get(EventFields.AGENT_ID).asText(), text(fields, EventFields.SESSION_ID), 0,
                text(fields, EventFields.ACTION_TYPE), text(fields, EventFields.ACTION_NAME),
                text(fields, EventFields.ACTION_STATUS), ts.getEpochSecond() * 1_000_000L + ts.getNano() / 1_000,
                duration == null ? -1 : duration.asLong(-1), labels, captured, null);
    }

    /**
     * The proposal's top-level fields as the rules read them ({@link PolicyEvent#captured}), without
     * copying them: read-only, and only while the proposal is decided (its fields do not change then).
     */
    private static final class FieldsView extends AbstractMap<String, JsonNode> {
        private final ObjectNode fields;

        FieldsView(ObjectNode fields) {
            this.fields = fields;
        }

        @Override
        public JsonNode get(Object key) {
            return key instanceof String k ? fields.get(k) : null;
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String k && fields.has(k);
        }

        @Override
        public Set<Entry<String, JsonNode>> entrySet() {
            return Collections.unmodifiableSet(fields.properties());
        }
    }

    private static String text(ObjectNode fields, String name) {
        JsonNode v = fields.get(name);
        return v == null || !v.isTextual() ? null : v.textValue();
    }
}
