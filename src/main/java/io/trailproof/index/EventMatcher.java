package io.trailproof.index;

import org.apache.lucene.search.Query;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Whether one event matches a request's filters and search query, decided on that event alone (the
 * live stream, src/site/live-stream.md). The query is parsed by the same parser as {@code GET /v1/search}, and
 * the event becomes the same document the index holds ({@link EventDocument}) in a one-document
 * in-memory index with the same analyzer, so a query matches an event here exactly when the search
 * finds it. Immutable and thread-safe once built.
 */
public final class EventMatcher {

    private static final IndexAnalyzer ANALYZER = new IndexAnalyzer();

    private final EventFilter filter;
    /** The query with the filters applied, or null when there is no query text (filters are then checked directly). */
    private final Query query;

    private EventMatcher(EventFilter filter, Query query) {
        this.filter = filter;
        this.query = query;
    }

    /**
     * The matcher of {@code queryText} (null: every event) restricted by {@code filter}; only its
     * exact filters ({@code agent_id}, {@code action_type}, {@code action_status}, {@code source},
     * labels) may be set.
     *
     * @throws BadQueryException when the text is refused, with the same message the search gives
     */
    public static EventMatcher of(String queryText, EventFilter filter) throws BadQueryException {
        if (filter.since() != null || filter.until() != null) {
            throw new IllegalArgumentException("a single-event matcher takes no time range");
        }
        Query query = null;
        if (queryText != null) {
            query = RequestQuery.withFilters(RequestQuery.parse(queryText, new EventQueryParser(ANALYZER)), filter);
        }
        return new EventMatcher(filter, query);
    }

    /** True when every event matches (no query, no filter): nothing about the event need be read. */
    public boolean matchesEverything() {
        return query == null && !filter.hasExact();
    }

    /** Whether {@code event} matches. */
    public boolean matches(CandidateEvent event) {
        if (matchesEverything()) {
            return true;
        }
        if (query == null) {
            var doc = event.document();
            if (filter.agentId() != null && !filter.agentId().equals(doc.get(IndexFields.AGENT_ID))) {
                return false;
            }
            if (filter.actionType() != null && !filter.actionType().equals(doc.get(IndexFields.ACTION_TYPE))) {
                return false;
            }
            if (filter.actionStatus() != null && !filter.actionStatus().equals(doc.get(IndexFields.ACTION_STATUS))) {
                return false;
            }
            if (filter.source() != null && !filter.source().equals(doc.get(IndexFields.SOURCE))) {
                return false;
            }
            for (Map.Entry<String, String> label : filter.labels().entrySet()) {
                if (!label.getValue().equals(doc.get(IndexFields.LABEL_PREFIX + label.getKey()))) {
                    return false;
                }
            }
            return true;
        }
        try {
            return event.searcher(ANALYZER).count(query) > 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // an in-memory index does no I/O
        }
    }
}
