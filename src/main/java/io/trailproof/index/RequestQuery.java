package io.trailproof.index;

import java.time.Instant;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.Term;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.automaton.TooComplexToDeterminizeException;

import java.util.Map;

/**
 * What an {@link IndexRequest} asks of Lucene: its query text parsed (bad or too costly text is a
 * {@link BadQueryException} that says what is wrong), its filters, and its order. Pure translation:
 * nothing here reads or writes an index.
 */
final class RequestQuery {

    /** Longest query text accepted; longer ones are refused before parsing. */
    static final int MAX_QUERY_CHARS = 10_000;

    private RequestQuery() {
    }

    /**
     * {@code text} parsed by {@code parser}; refused when too long, blank, nested too deep, malformed or
     * too costly to expand, with a message that says which.
     */
    static Query parse(String text, EventQueryParser parser) throws BadQueryException {
        if (text.length() > MAX_QUERY_CHARS) {
            throw new BadQueryException("the query is " + text.length() + " characters long; the limit is " + MAX_QUERY_CHARS);
        }
        if (text.isBlank()) {
            throw new BadQueryException("the query is empty; give search terms in Lucene query syntax, e.g. q=error AND agent_id:agent-007");
        }
        QueryBounds.checkNesting(text);
        try {
            return parser.parse(text);
        } catch (ParseException e) {
            throw new BadQueryException(QuerySyntax.explain(e));
        } catch (TooComplexToDeterminizeException e) {
            throw new BadQueryException("a wildcard or regular expression in the query is too complex to run; simplify it");
        } catch (IndexSearcher.TooManyClauses e) {
            throw new BadQueryException("the query has more than " + IndexSearcher.getMaxClauseCount() + " clauses");
        } catch (IllegalArgumentException e) {
            throw new BadQueryException("the query cannot be run: " + e.getMessage());
        }
    }

    /** {@code query} restricted by the request's filters, which do not change its score. */
    static Query withFilters(Query query, EventFilter filter) {
        BooleanQuery.Builder b = new BooleanQuery.Builder().add(query, BooleanClause.Occur.MUST);
        if (filter.agentId() != null) {
            b.add(new TermQuery(new Term(IndexFields.AGENT_ID, filter.agentId())), BooleanClause.Occur.FILTER);
        }
        if (filter.actionType() != null) {
            b.add(new TermQuery(new Term(IndexFields.ACTION_TYPE, filter.actionType())), BooleanClause.Occur.FILTER);
        }
        if (filter.actionStatus() != null) {
            b.add(new TermQuery(new Term(IndexFields.ACTION_STATUS, filter.actionStatus())), BooleanClause.Occur.FILTER);
        }
        if (filter.source() != null) {
            b.add(new TermQuery(new Term(IndexFields.SOURCE, filter.source())), BooleanClause.Occur.FILTER);
        }
        for (Map.Entry<String, String> label : filter.labels().entrySet()) {
            b.add(new TermQuery(new Term(IndexFields.LABEL_PREFIX + label.getKey(), label.getValue())),
                    BooleanClause.Occur.FILTER);
        }
        if (filter.since() != null || filter.until() != null) {
            long low = filter.since() == null ? Long.MIN_VALUE : ceilMicros(filter.since());
            long high = filter.until() == null ? Long.MAX_VALUE : ceilMicros(filter.until()) - 1;
            b.add(LongPoint.newRangeQuery(IndexFields.TIMESTAMP, low, high), BooleanClause.Occur.FILTER);
        }
        return b.build();
    }

    /**
     * Newest {@code log_index} first: the relevance order of a query whose every match scores the
     * same ({@link ConstantScores}), and the index's own order ({@link LuceneEventIndex#INDEX_SORT}).
     */
    static final Sort NEWEST_LOGGED_FIRST = new Sort(new SortField(IndexFields.LOG_INDEX, SortField.Type.LONG, true));

    /**
     * The order of a page. The last sort field is always the log position: it breaks ties, so pages
     * are stable, and {@link LuceneEventIndex#find} reads each hit's position back from it.
     */
    static Sort sort(IndexRequest.Order order) {
        return switch (order) {
            case RELEVANCE -> new Sort(SortField.FIELD_SCORE, new SortField(IndexFields.LOG_INDEX, SortField.Type.LONG, true));
            case NEWEST_FIRST -> new Sort(new SortField(IndexFields.TIMESTAMP, SortField.Type.LONG, true),
                    new SortField(IndexFields.LOG_INDEX, SortField.Type.LONG, true));
            case OLDEST_FIRST -> new Sort(new SortField(IndexFields.TIMESTAMP, SortField.Type.LONG, false),
                    new SortField(IndexFields.LOG_INDEX, SortField.Type.LONG, false));
        };
    }

    /** Event times are held in whole microseconds; a bound between two of them rounds up. */
    private static long ceilMicros(Instant t) {
        long floor = EventDocument.micros(t);
        return t.getNano() % 1_000 == 0 ? floor : floor + 1;
    }
}
