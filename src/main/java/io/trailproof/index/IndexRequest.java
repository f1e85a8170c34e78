package io.trailproof.index;

/**
 * One page of a listing or a search: an optional query in Lucene classic syntax (null lists every
 * event), the filters, the order, and the page.
 */
public record IndexRequest(String query, EventFilter filter, Order order, long offset, int limit) {

    /** Result order. Ties are always broken by {@code log_index}, newest first unless ascending. */
    public enum Order {
        /** Best score first (searches only). */
        RELEVANCE,
        /** Newest event {@code timestamp} first. */
        NEWEST_FIRST,
        /** Oldest event {@code timestamp} first. */
        OLDEST_FIRST
    }

    public IndexRequest {
        if (offset < 0 || limit < 1) {
            throw new IllegalArgumentException("offset must be >= 0 and limit >= 1");
        }
        if (filter == null) {
            filter = EventFilter.none();
        }
    }
}
