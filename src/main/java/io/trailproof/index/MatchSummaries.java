package io.trailproof.index;

import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.facet.StringDocValuesReaderState;
import org.apache.lucene.facet.StringValueFacetCounts;
import org.apache.lucene.index.DocValuesType;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes a {@link MatchSummary} over every match of a query: one collection of the matching
 * documents, then facet counts from the keyword fields' sorted doc values (Lucene's doc-values
 * faceting, no taxonomy index) and histogram counts from the {@code timestamp} doc values. Memory
 * depends on the number of distinct values and buckets, never on the number of matches beyond the
 * match bit sets Lucene keeps per segment.
 */
final class MatchSummaries {

    private MatchSummaries() {
    }

    static MatchSummary of(IndexSearcher searcher, Query query, SummaryRequest request)
            throws IOException, BadQueryException {
        FacetsCollector matches = searcher.search(query, new FacetsCollectorManager());
        Map<String, List<MatchSummary.FacetCount>> facets = new LinkedHashMap<>();
        for (String field : request.facets()) {
            facets.put(field, facet(searcher, matches, field));
        }
        List<MatchSummary.Bucket> histogram = request.histogram() == null ? List.of()
                : histogram(matches, request.histogram().getSeconds() * 1_000_000 + request.histogram().getNano() / 1_000);
        return new MatchSummary(facets, histogram);
    }

    private static List<MatchSummary.FacetCount> facet(IndexSearcher searcher, FacetsCollector matches, String field)
            throws IOException {
        if (!hasSortedValues(searcher, field)) {
            return List.of(); // no event has this field (a label key nobody used): nothing to count
        }
        StringValueFacetCounts counts = new StringValueFacetCounts(
                new StringDocValuesReaderState(searcher.getIndexReader(), field), matches);
        FacetResult all = counts.getAllChildren(field);
        List<MatchSummary.FacetCount> out = new ArrayList<>();
        if (all != null) {
            for (LabelAndValue lv : all.labelValues) {
                if (lv.value.longValue() > 0) {
                    out.add(new MatchSummary.FacetCount(lv.label, lv.value.longValue()));
                }
            }
        }
        out.sort(Comparator.comparingLong(MatchSummary.FacetCount::count).reversed()
                .thenComparing(MatchSummary.FacetCount::value));
        return out.size() > SummaryRequest.TOP_VALUES ? List.copyOf(out.subList(0, SummaryRequest.TOP_VALUES)) : out;
    }

    private static boolean hasSortedValues(IndexSearcher searcher, String field) {
        for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
            FieldInfo info = leaf.reader().getFieldInfos().fieldInfo(field);
            if (info != null && info.getDocValuesType() == DocValuesType.SORTED) {
                return true;
            }
        }
        return false;
    }

    /**
     * Counts per bucket of {@code width} microseconds, aligned to multiples of it from the epoch. The
     * first pass finds the first and last bucket, so that a request for too many buckets is refused
     * before anything is allocated for them.
     */
    private static List<MatchSummary.Bucket> histogram(FacetsCollector matches, long width)
            throws IOException, BadQueryException {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (FacetsCollector.MatchingDocs docs : matches.getMatchingDocs()) {
            NumericDocValues times = docs.context().reader().getNumericDocValues(IndexFields.TIMESTAMP);
            DocIdSetIterator it = docs.totalHits() == 0 || times == null ? null : docs.bits().iterator();
            for (int doc = it == null ? DocIdSetIterator.NO_MORE_DOCS : it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS;
                 doc = it.nextDoc()) {
                if (times.advanceExact(doc)) {
                    long bucket = Math.floorDiv(times.longValue(), width);
                    first = Math.min(first, bucket);
                    last = Math.max(last, bucket);
                }
            }
        }
        if (first > last) {
            return List.of();
        }
        long buckets = last - first + 1;
        if (buckets > SummaryRequest.MAX_BUCKETS) {
            throw new BadQueryException("the histogram would have " + buckets
                    + " buckets from the first match to the last; the limit is " + SummaryRequest.MAX_BUCKETS
                    + ": choose a longer bucket duration or a narrower time range");
        }
        long[] counts = new long[(int) buckets];
        for (FacetsCollector.MatchingDocs docs : matches.getMatchingDocs()) {
            NumericDocValues times = docs.context().reader().getNumericDocValues(IndexFields.TIMESTAMP);
            DocIdSetIterator it = docs.totalHits() == 0 || times == null ? null : docs.bits().iterator();
            for (int doc = it == null ? DocIdSetIterator.NO_MORE_DOCS : it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS;
                 doc = it.nextDoc()) {
                if (times.advanceExact(doc)) {
                    counts[(int) (Math.floorDiv(times.longValue(), width) - first)]++;
                }
            }
        }
        List<MatchSummary.Bucket> out = new ArrayList<>(counts.length);
        for (int i = 0; i < counts.length; i++) {
            out.add(new MatchSummary.Bucket(Math.multiplyExact(first + i, width), counts[i]));
        }
        return out;
    }
}
