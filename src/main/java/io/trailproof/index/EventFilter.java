package io.trailproof.index;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The filters of {@code GET /v1/events} and {@code GET /v1/search} (CONTRACT 4.2), all combined with
 * AND: exact {@code agent_id} and {@code action_type}, {@code since} (inclusive) and {@code until}
 * (exclusive) on the event {@code timestamp}, and exact label values. Null means no filter.
 */
public record EventFilter(String agentId, String actionType, Instant since, Instant until, Map<String, String> labels) {

    public EventFilter {
        labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    public static EventFilter none() {
        return new EventFilter(null, null, null, null, Map.of());
    }
}
