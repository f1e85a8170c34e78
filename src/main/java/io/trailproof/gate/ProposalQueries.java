package io.trailproof.gate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.policy.GateEvaluator;
import io.trailproof.index.BadQueryException;
import io.trailproof.index.CandidateEvent;
import io.trailproof.index.EventFilter;
import io.trailproof.index.EventMatcher;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code match} rules' queries, compiled once per policy with the live stream's one-event
 * matcher, so a query matches a proposal exactly when the search would find the same event stored.
 * Immutable and thread-safe.
 */
final class ProposalQueries {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String NO_HASH = "0".repeat(64);

    private final Map<String, EventMatcher> matchers;

    private ProposalQueries(Map<String, EventMatcher> matchers) {
        this.matchers = matchers;
    }

    /**
     * @throws BadQueryException naming the query that does not parse
     */
    static ProposalQueries compile(Set<String> queries) throws BadQueryException {
        Map<String, EventMatcher> out = new HashMap<>();
        for (String q : queries) {
            out.put(q, EventMatcher.of(q, EventFilter.none()));
        }
        return new ProposalQueries(Map.copyOf(out));
    }

    /** Compiles one query, for the parser's 400 naming the rule. */
    static void check(String query) throws BadQueryException {
        EventMatcher.of(query, EventFilter.none());
    }

    /**
     * The test for one proposal: its fields become an event as the index reads it (with placeholder
     * service fields, which no rule's query is about), analysed at most once however many rules ask.
     */
    GateEvaluator.QueryTest forProposal(ObjectNode fields, String recordedAt) {
        if (matchers.isEmpty()) {
            return q -> false;
        }
        CandidateEvent[] candidate = new CandidateEvent[1];
        return q -> {
            EventMatcher m = matchers.get(q);
            if (m == null) {
                return false;
            }
            if (candidate[0] == null) {
                ObjectNode event = fields.deepCopy();
                event.put(EventFields.ID, "00000000-0000-7000-8000-000000000000");
                event.put(EventFields.SCHEMA_VERSION, EventFields.SCHEMA_VERSION_1_0);
                event.put(EventFields.SEQUENCE, 1);
                event.put(EventFields.PREV_HASH, EventFields.GENESIS_PREV_HASH);
                event.put(EventFields.RECORDED_AT, recordedAt);
                event.put(EventFields.LOG_INDEX, 0);
                event.put(EventFields.HASH, NO_HASH);
                try {
                    candidate[0] = new CandidateEvent(0, MAPPER.writeValueAsBytes(event));
                } catch (IOException e) {
                    throw new IllegalStateException("a tree of validated fields always writes", e);
                }
            }
            return m.matches(candidate[0]);
        };
    }
}
