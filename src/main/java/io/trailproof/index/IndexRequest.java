package io.trailproof.index;

import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * One page of a listing or a search: an optional query in Lucene classic syntax (null lists every
 * event), the filters, the order, the page, what to summarise over all matches, and whether the
 * events themselves are read ({@code positionsOnly}: only their log indexes, for a caller that
 * streams many of them and reads them a few at a time), and whether whoever asked has gone
 * ({@code clientGone}: asked while the search runs, and it is cancelled once true; it must be cheap).
 */
public record IndexRequest(String query, EventFilter filter, Order order, long offset, int limit,
                           SummaryRequest summary, boolean positionsOnly, BooleanSupplier clientGone) {

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
        if (summary == null) {
            summary = NO_SUMMARY;
        }
        if (clientGone == null) {
            clientGone = NEVER_GONE;
        }
    }

    private static final BooleanSupplier NEVER_GONE = () -> false;

    /** A request whose caller waits for it to the end. */
    public IndexRequest(String query, EventFilter filter, Order order, long offset, int limit, SummaryRequest summary,
                        boolean positionsOnly) {
        this(query, filter, order, offset, limit, summary, positionsOnly, null);
    }

    /** This request, cancelled once {@code gone} says its caller has gone. */
    public IndexRequest cancelledWhen(BooleanSupplier gone) {
        return new IndexRequest(query, filter, order, offset, limit, summary, positionsOnly, gone);
    }

    private static final SummaryRequest NO_SUMMARY = new SummaryRequest(List.of(), null);

    /** A page of events, with no summary. */
    public IndexRequest(String query, EventFilter filter, Order order, long offset, int limit) {
        this(query, filter, order, offset, limit, null, false, null);
    }
}
