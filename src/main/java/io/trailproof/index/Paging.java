package io.trailproof.index;

import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.MultiCollectorManager;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHitCountCollectorManager;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One page of hits at any offset for the cost of one page: memory never grows
 * with the offset, so {@code offset=999999999} or a page deep in a large result costs no more heap
 * than the first page.
 */
final class Paging {

    /**
     * Hits held at a time (a few MB) while a deep page in relevance order steps over the hits before
     * it; pages in time order find their start by counting instead.
     */
    static final int STEP = 25_000;

    private Paging() {
    }

    /**
     * The hits {@code [offset, offset + count)} of {@code total} in {@code sort} order, holding at most
     * {@code step} hits at a time whatever the offset: the page is read from whichever end of
     * the order is nearer (the sort reversed, then the page turned back), after the sort key of the
     * hit before it ({@code searchAfter}). For an order by time that key is found by counting
     * ({@link #sortKeyByCounting}); for relevance the hits before the page are stepped over
     * {@code step} at a time. Exact because every order ends with {@code log_index}, which no two
     * events share.
     */
    static List<ScoreDoc> page(IndexSearcher searcher, Query query, Sort sort, boolean scores, long offset,
                                       int count, long total, int step) throws IOException {
        long after = total - offset - count;
        boolean fromEnd = after < offset;
        Sort order = fromEnd ? reversed(sort) : sort;
        long skip = fromEnd ? after : offset;
        FieldDoc last = null;
        if (skip > 0) {
            last = sortKeyByCounting(searcher, query, order, skip, total);
            if (last != null) {
                skip = 0;
            }
        }
        while (skip > 0) {
            // Ordered by score: stepped over, a bounded number of hits at a time.
            int n = (int) Math.min(step, skip);
            ScoreDoc[] stepped = searcher.search(query, new TopFieldCollectorManager(order, n, last, 1)).scoreDocs;
            if (stepped.length == 0) {
                return List.of(); // the reader cannot change under a search; only a bug gets here
            }
            last = (FieldDoc) stepped[stepped.length - 1];
            skip -= stepped.length;
        }
        TopFieldDocs top = searcher.search(query, new TopFieldCollectorManager(order, count, last, 1));
        if (scores) {
            scores(top.scoreDocs, order, searcher, query);
        }
        List<ScoreDoc> docs = new ArrayList<>(List.of(top.scoreDocs));
        if (fromEnd) {
            Collections.reverse(docs);
        }
        return docs;
    }

    /** The first page of a search and its exact number of hits. */
    record FirstPage(long total, List<ScoreDoc> hits) {
    }

    /**
     * The first {@code count} hits in {@code sort} order and the exact number of hits, in one pass
     * over the matches: in an order that reads no score the page's collector stops reading a
     * segment once it holds a page of it (the index's own order), and the counter takes a segment's
     * count from the index when the index knows it ({@code *:*}, one term) and counts the matches
     * otherwise; in an order that reads the score every match is scored and counted (for a query
     * {@link #countedByIndex} says the index cannot count). Counting first and collecting the page
     * after would walk a selective query's matches, and look its terms up in every segment, twice.
     */
    static FirstPage firstPage(IndexSearcher searcher, Query query, Sort sort, boolean scores, int count)
            throws IOException {
        Object[] both = searcher.search(query, new MultiCollectorManager(new TopFieldCollectorManager(sort, count, null, 1),
                new TotalHitCountCollectorManager(searcher.getSlices())));
        TopFieldDocs top = (TopFieldDocs) both[0];
        if (scores) {
            scores(top.scoreDocs, sort, searcher, query);
        }
        return new FirstPage((Integer) both[1], List.of(top.scoreDocs));
    }

    /**
     * True when the index can give the number of matches of {@code query} without walking them: a
     * single term (its document frequency in each segment without deletions) or {@code *:*}, alone
     * or as the one clause of a boolean query. A first page in an order that reads the score is then
     * found in two passes, a count that reads no posting and a collection that scores only the hits
     * that can still enter the page; any other query (a conjunction, a filter, a word of the default
     * field, which searches several fields at once) has its matches walked to be counted anyway, so
     * its first page is found in the same pass ({@link #firstPage}), with one lookup of its terms in
     * each segment instead of two.
     */
    static boolean countedByIndex(Query query) {
        Query q = query;
        while (true) {
            if (q instanceof BoostQuery b) {
                q = b.getQuery();
            } else if (q instanceof BooleanQuery b && b.clauses().size() == 1
                    && b.clauses().get(0).occur() != BooleanClause.Occur.MUST_NOT) {
                q = b.clauses().get(0).query();
            } else {
                return q instanceof TermQuery || q instanceof MatchAllDocsQuery;
            }
        }
    }

    /**
     * For an order by {@code log_index} alone, or by {@code timestamp} then {@code log_index} (one
     * direction): the sort key of the {@code skip}-th hit, found by binary searches that only count, so that the page after it
     * costs one collection of the page whatever {@code skip} is. Null when the order is another one
     * or some hit has no timestamp (a placeholder for an unreadable log entry): the caller steps.
     */
    private static FieldDoc sortKeyByCounting(IndexSearcher searcher, Query query, Sort order, long skip, long total)
            throws IOException {
        SortField[] fields = order.getSort();
        IndexReader reader = searcher.getIndexReader();
        if (fields.length == 1 && IndexFields.LOG_INDEX.equals(fields[0].getField())) {
            // The order of a search whose every match scores the same: log_index alone, which every document has.
            byte[] min = PointValues.getMinPackedValue(reader, IndexFields.LOG_INDEX);
            if (min == null) {
                return null;
            }
            long l = boundary(searcher, query, IndexFields.LOG_INDEX, LongPoint.decodeDimension(min, 0),
                    LongPoint.decodeDimension(PointValues.getMaxPackedValue(reader, IndexFields.LOG_INDEX), 0),
                    fields[0].getReverse(), skip);
            return new FieldDoc(Integer.MAX_VALUE, Float.NaN, new Object[] {l});
        }
        if (fields.length != 2 || !IndexFields.TIMESTAMP.equals(fields[0].getField())
                || !IndexFields.LOG_INDEX.equals(fields[1].getField()) || fields[0].getReverse() != fields[1].getReverse()) {
            return null;
        }
        boolean descending = fields[0].getReverse();
        byte[] minTs = PointValues.getMinPackedValue(reader, IndexFields.TIMESTAMP);
        byte[] maxTs = PointValues.getMaxPackedValue(reader, IndexFields.TIMESTAMP);
        if (minTs == null || searcher.count(within(query, IndexFields.TIMESTAMP, Long.MIN_VALUE, Long.MAX_VALUE)) != total) {
            return null;
        }
        long t = boundary(searcher, query, IndexFields.TIMESTAMP, LongPoint.decodeDimension(minTs, 0),
                LongPoint.decodeDimension(maxTs, 0), descending, skip);
        long before = t == (descending ? Long.MAX_VALUE : Long.MIN_VALUE) ? 0 : searcher.count(descending
                ? within(query, IndexFields.TIMESTAMP, t + 1, Long.MAX_VALUE)
                : within(query, IndexFields.TIMESTAMP, Long.MIN_VALUE, t - 1));
        Query tied = within(query, IndexFields.TIMESTAMP, t, t);
        long l = boundary(searcher, tied, IndexFields.LOG_INDEX, LongPoint.decodeDimension(
                PointValues.getMinPackedValue(reader, IndexFields.LOG_INDEX), 0), LongPoint.decodeDimension(
                PointValues.getMaxPackedValue(reader, IndexFields.LOG_INDEX), 0), descending, skip - before);
        // No hit shares a log_index, so a key whose doc id sorts after every doc is exactly "after this hit".
        return new FieldDoc(Integer.MAX_VALUE, Float.NaN, new Object[] {t, l});
    }

    /**
     * Ascending: the least {@code v} in {@code [lo, hi]} with at least {@code rank} hits at or below
     * it; descending: the greatest with at least {@code rank} hits at or above it.
     */
    private static long boundary(IndexSearcher searcher, Query query, String field, long lo, long hi, boolean descending,
                                 long rank) throws IOException {
        while (lo < hi) {
            if (descending) {
                long mid = (lo | hi) - ((lo ^ hi) >> 1); // ceiling of the mean, without overflow
                if (searcher.count(within(query, field, mid, Long.MAX_VALUE)) >= rank) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            } else {
                long mid = (lo & hi) + ((lo ^ hi) >> 1); // floor of the mean, without overflow
                if (searcher.count(within(query, field, Long.MIN_VALUE, mid)) >= rank) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
        }
        return lo;
    }

    private static Query within(Query query, String field, long low, long high) {
        return new BooleanQuery.Builder().add(query, BooleanClause.Occur.FILTER)
                .add(LongPoint.newRangeQuery(field, low, high), BooleanClause.Occur.FILTER).build();
    }

    /**
     * Sets each hit's score. In an order by relevance the collection computed it as the hit's first
     * sort key, so it is taken from there (the same float a second scoring gives); in any other order
     * the hits are scored again, which builds the query's weight once more and so looks its terms up
     * in every segment.
     */
    private static void scores(ScoreDoc[] hits, Sort order, IndexSearcher searcher, Query query) throws IOException {
        if (order.getSort()[0].getType() == SortField.Type.SCORE) {
            for (ScoreDoc d : hits) {
                d.score = (Float) ((FieldDoc) d).fields[0];
            }
        } else {
            TopFieldCollector.populateScores(hits, searcher, query);
        }
    }

    private static Sort reversed(Sort sort) {
        SortField[] fields = sort.getSort();
        SortField[] flipped = new SortField[fields.length];
        for (int i = 0; i < fields.length; i++) {
            SortField f = fields[i];
            flipped[i] = f.getType() == SortField.Type.SCORE ? new SortField(null, SortField.Type.SCORE, !f.getReverse())
                    : new SortField(f.getField(), f.getType(), !f.getReverse());
        }
        return new Sort(flipped);
    }
}
