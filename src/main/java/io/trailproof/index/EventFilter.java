package io.trailproof.index;

import io.trailproof.core.event.EventFields;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The filters of {@code GET /v1/events}, {@code GET /v1/search} and {@code GET /v1/stream}
 * (src/site/http-api.md#reading-events), all combined with AND: exact {@code agent_id}, {@code action_type}, {@code action_status} and
 * {@code source}, {@code since} (inclusive) and {@code until} (exclusive) on the event
 * {@code timestamp}, and exact label values. Null means no filter. {@code action_status} and
 * {@code source} go beyond src/site/http-api.md#endpoints: they let a facet value of either narrow a search
 * (src/site/console.md) the way agent and action type already do.
 */
public record EventFilter(String agentId, String actionType, String actionStatus, String source, Instant since,
                          Instant until, Map<String, String> labels) {

    public EventFilter {
        labels = labels == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /** The filters of src/site/http-api.md#endpoints alone. */
    public EventFilter(String agentId, String actionType, Instant since, Instant until, Map<String, String> labels) {
        this(agentId, actionType, null, null, since, until, labels);
    }

    public static EventFilter none() {
        return new EventFilter(null, null, null, null, Map.of());
    }

    /**
     * True when {@code filter} (null: none) can match records of the trail of who looked (agent
     * {@value EventFields#ACCESS_AGENT}): it names no agent, or that one.
     */
    static boolean mayMatchTrail(EventFilter filter) {
        return filter == null || filter.agentId == null || EventFields.ACCESS_AGENT.equals(filter.agentId);
    }

    /** True when {@code filter} (null: none) can match agents' events: it names no agent, or another one. */
    static boolean mayMatchAgents(EventFilter filter) {
        return filter == null || !EventFields.ACCESS_AGENT.equals(filter.agentId);
    }

    /** True when some exact filter (every filter but the time range) is set. */
    boolean hasExact() {
        return agentId != null || actionType != null || actionStatus != null || source != null || !labels.isEmpty();
    }
}
