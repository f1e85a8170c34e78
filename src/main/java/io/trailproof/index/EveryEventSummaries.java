package io.trailproof.index;

import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link MatchSummary} of a search that matches every event (the console's empty query box),
 * without reading any event's values: facet counts are the document frequencies of the keyword
 * terms, and histogram counts come from the {@code timestamp} points tree, whose cells that fall
 * inside one bucket are counted whole. Exact only while no document is deleted (a deleted document
 * still counts in both until its segment is merged), so {@link #applies} asks for that; the result
 * is then the same as {@link MatchSummaries}' walk over every match, for a cost that follows the
 * number of distinct values and of bucket boundaries instead of the number of events.
 *
 * <p>It relies on what {@link EventDocument} writes: each facetable field holds one exact term and
 * the same value as a sorted doc value, and each event one {@code timestamp} point beside its doc
 * value (a placeholder holds neither).
 */
final class EveryEventSummaries {

    private EveryEventSummaries() {
    }

    /** True when {@code query} matches every document and none is deleted. */
    static boolean applies(IndexSearcher searcher, Query query) throws IOException {
        return !searcher.getIndexReader().hasDeletions() && searcher.rewrite(query) instanceof MatchAllDocsQuery;
    }

    static MatchSummary of(IndexReader reader, SummaryRequest request) throws IOException, BadQueryException {
        Map<String, List<MatchSummary.FacetCount>> facets = new LinkedHashMap<>();
        for (String field : request.facets()) {
            Map<String, Long> counts = new HashMap<>();
            for (LeafReaderContext leaf : reader.leaves()) {
                Terms terms = leaf.reader().terms(field);
                if (terms == null) {
                    continue;
                }
                TermsEnum it = terms.iterator();
                for (BytesRef term = it.next(); term != null; term = it.next()) {
                    counts.merge(term.utf8ToString(), (long) it.docFreq(), Long::sum);
                }
            }
            facets.put(field, MatchSummaries.top(counts));
        }
        List<MatchSummary.Bucket> histogram = request.histogram() == null ? List.of()
                : histogram(reader, request.histogram().getSeconds() * 1_000_000 + request.histogram().getNano() / 1_000);
        return new MatchSummary(facets, histogram);
    }

    private static List<MatchSummary.Bucket> histogram(IndexReader reader, long width)
            throws IOException, BadQueryException {
        byte[] min = PointValues.getMinPackedValue(reader, IndexFields.TIMESTAMP);
        if (min == null) {
            return List.of();
        }
        long first = Math.floorDiv(LongPoint.decodeDimension(min, 0), width);
        long last = Math.floorDiv(LongPoint.decodeDimension(
                PointValues.getMaxPackedValue(reader, IndexFields.TIMESTAMP), 0), width);
        MatchSummaries.checkBuckets(last - first + 1);
        long[] counts = new long[(int) (last - first + 1)];
        for (LeafReaderContext leaf : reader.leaves()) {
            PointValues points = leaf.reader().getPointValues(IndexFields.TIMESTAMP);
            if (points != null) {
                count(points.getPointTree(), width, first, counts);
            }
        }
        List<MatchSummary.Bucket> out = new ArrayList<>(counts.length);
        for (int i = 0; i < counts.length; i++) {
            out.add(new MatchSummary.Bucket(Math.multiplyExact(first + i, width), counts[i]));
        }
        return out;
    }

    /** Adds the points under {@code tree} to their buckets: a cell inside one bucket at once, else its children. */
    private static void count(PointValues.PointTree tree, long width, long first, long[] counts) throws IOException {
        long low = Math.floorDiv(LongPoint.decodeDimension(tree.getMinPackedValue(), 0), width);
        long high = Math.floorDiv(LongPoint.decodeDimension(tree.getMaxPackedValue(), 0), width);
        if (low == high) {
            counts[(int) (low - first)] += tree.size();
            return;
        }
        if (tree.moveToChild()) {
            do {
                count(tree, width, first, counts);
            } while (tree.moveToSibling());
            tree.moveToParent();
            return;
        }
        tree.visitDocValues(new PointValues.IntersectVisitor() {
            @Override
            public void visit(int docID) {
                throw new IllegalStateException("a leaf cell is visited with its values");
            }

            @Override
            public void visit(int docID, byte[] packedValue) {
                counts[(int) (Math.floorDiv(LongPoint.decodeDimension(packedValue, 0), width) - first)]++;
            }

            @Override
            public PointValues.Relation compare(byte[] minPackedValue, byte[] maxPackedValue) {
                return PointValues.Relation.CELL_CROSSES_QUERY;
            }
        });
    }
}
