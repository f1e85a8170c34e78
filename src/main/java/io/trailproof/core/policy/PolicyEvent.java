package io.trailproof.core.policy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;

import java.util.Map;

/**
 * The facts of one stored event that policy rules look at. {@code timestampMicros} is the event's
 * {@code timestamp} as microseconds since the epoch; {@code durationMs} is -1 when absent; absent
 * strings are null. {@code captured} holds, whole, the top-level fields that pattern rules read
 * (by their first path segment); {@code payload} is the stored bytes, for the chain check only,
 * and must not be kept beyond the event's visit.
 */
public record PolicyEvent(long logIndex, String id, String agentId, String sessionId, long sequence,
                          String actionType, String actionName, String actionStatus, long timestampMicros,
                          long durationMs, Map<String, String> labels, Map<String, JsonNode> captured,
                          byte[] payload) {

    /** True when every label of {@code filter} is on this event with the same value. */
    public boolean hasLabels(Map<String, String> filter) {
        for (Map.Entry<String, String> e : filter.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The text of the value at a dotted path ({@code action_input.query}, {@code labels.env}), or
     * null when the event has no value there. A string is its text; any other value its JSON text.
     * At each level the rest of the path is first tried as one key, so that a key holding dots
     * ({@code labels.app.tier}) is found too.
     */
    public String valueAt(String[] path) {
        JsonNode node = captured.get(path[0]);
        for (int i = 1; node != null && i < path.length; i++) {
            if (!node.isObject()) {
                return null;
            }
            // the rest as one key; for the last segment that is the segment itself, looked up below
            JsonNode whole = i == path.length - 1 ? null : node.get(String.join(".", Arrays.copyOfRange(path, i, path.length)));
            if (whole != null) {
                node = whole;
                break;
            }
            node = node.get(path[i]);
        }
        if (node == null || node.isNull() || node.isMissingNode()) {
            return null;
        }
        return node.isTextual() ? node.textValue() : node.toString();
    }
}
