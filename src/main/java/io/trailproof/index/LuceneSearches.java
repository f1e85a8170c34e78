package io.trailproof.index;

import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.ExitableDirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.QueryTimeout;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.util.BytesRef;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * The read side of a {@link LuceneEventIndex}: searches on its near-real-time readers, under a time
 * limit that also bounds term expansion ({@link ExitableDirectoryReader}), highlights, and walks of
 * every live document. Safe for concurrent use; it never writes (the index refreshes the readers).
 *
 * <p>A search reads only the indexes its agent filter can match
 * (src/site/search.md#two-indexes-agents-events-and-the-trail-of-who-looked): one filtered to an
 * agent other than {@value EventFields#ACCESS_AGENT} reads agents' events alone, one filtered to
 * that agent the trail alone, and one of every agent both as one {@link MultiReader}, whose term
 * and field statistics are the sums of the two, so it scores and orders exactly as one index holding
 * every document would.
 */
final class LuceneSearches {

    /** The longest a search may run (term expansion included) before it is refused as too broad. */
    static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);

    private final IndexPart agents;
    /** Null when {@code agents} holds every event (one index). */
    private final IndexPart trail;
    private final IndexAnalyzer analyzer;
    private final Highlights highlights;

    /** Searches of {@code agents} and {@code trail}; with a null {@code trail}, of one index holding every event. */
    LuceneSearches(IndexPart agents, IndexPart trail, IndexAnalyzer analyzer) {
        this.agents = agents;
        this.trail = trail;
        this.analyzer = analyzer;
        this.highlights = new Highlights(analyzer);
    }

    /** The indexes a search with {@code filter} reads: those that can hold an event it matches. */
    private List<IndexPart> partsFor(EventFilter filter) {
        if (trail == null) {
            return List.of(agents);
        }
        if (!EventFilter.mayMatchTrail(filter)) {
            return List.of(agents);
        }
        return EventFilter.mayMatchAgents(filter) ? List.of(agents, trail) : List.of(trail);
    }

    private List<IndexPart> all() {
        return trail == null ? List.of(agents) : List.of(agents, trail);
    }

    /** One page of a search, stepping over hits before the page {@code pageStep} at a time ({@link Paging}). */
    EventIndex.Page find(IndexRequest request, int pageStep) throws BadQueryException, IOException {
        Query query = request.query() == null ? new MatchAllDocsQuery() : parse(request.query());
        Query filtered = RequestQuery.withFilters(query, request.filter());
        Sort sort = RequestQuery.sort(request.order());
        BooleanSupplier gone = request.clientGone();
        if (gone.getAsBoolean()) {
            throw cancelled();
        }
        List<IndexPart> parts = partsFor(request.filter());
        IndexSearcher[] bases = new IndexSearcher[parts.size()];
        try {
            for (int i = 0; i < bases.length; i++) {
                bases[i] = parts.get(i).searchers.acquire();
            }
            long deadline = System.nanoTime() + QUERY_TIMEOUT.toNanos();
            // Asked by Lucene every few terms and documents: the search stops at its deadline or
            // once its client has gone, term expansion included.
            QueryTimeout timeout = () -> System.nanoTime() - deadline > 0 || gone.getAsBoolean();
            IndexReader[] readers = new IndexReader[bases.length];
            for (int i = 0; i < bases.length; i++) {
                readers[i] = ExitableDirectoryReader.wrap((DirectoryReader) bases[i].getIndexReader(), timeout);
            }
            // Not closed, as the single wrapper is not: closing would close the searchers' readers.
            IndexSearcher searcher = new IndexSearcher(readers.length == 1 ? readers[0] : new MultiReader(readers, false));
            searcher.setTimeout(timeout);
            if (request.order() == IndexRequest.Order.RELEVANCE && ConstantScores.of(query, searcher.getIndexReader())) {
                // Every match scores the same: relevance is the index's own order, which stops early.
                sort = RequestQuery.NEWEST_LOGGED_FIRST;
            }
            List<EventIndex.Hit> hits = new ArrayList<>();
            long total;
            try {
                List<ScoreDoc> page;
                if (request.offset() == 0 && request.limit() > 0
                        && (!sort.needsScores() || !Paging.countedByIndex(filtered))) {
                    Paging.FirstPage first = Paging.firstPage(searcher, filtered, sort, request.query() != null,
                            request.limit());
                    total = first.total();
                    page = first.hits();
                } else {
                    total = searcher.count(filtered);
                    page = request.offset() < total ? Paging.page(searcher, filtered, sort, request.query() != null,
                            request.offset(), (int) Math.min(request.limit(), total - request.offset()), total, pageStep)
                            : List.of();
                }
                for (ScoreDoc d : page) {
                    Object[] fields = ((FieldDoc) d).fields;
                    long logIndex = (Long) fields[fields.length - 1];
                    hits.add(new EventIndex.Hit(logIndex, request.query() == null ? Float.NaN : d.score));
                }
            } catch (ExitableDirectoryReader.ExitingReaderException e) {
                throw stopped(gone);
            } catch (IndexSearcher.TooManyClauses e) {
                throw new BadQueryException("the query expands to more than " + IndexSearcher.getMaxClauseCount()
                        + " clauses; use fewer terms or a more specific pattern");
            }
            if (searcher.timedOut()) {
                throw stopped(gone);
            }
            MatchSummary summary = null;
            if (!request.summary().isEmpty()) {
                try {
                    summary = MatchSummaries.of(searcher, filtered, request.summary());
                } catch (ExitableDirectoryReader.ExitingReaderException e) {
                    throw stopped(gone);
                }
                if (searcher.timedOut()) {
                    throw stopped(gone);
                }
            }
            return new EventIndex.Page(total, hits, summary);
        } finally {
            for (int i = 0; i < bases.length; i++) {
                if (bases[i] != null) {
                    parts.get(i).searchers.release(bases[i]);
                }
            }
        }
    }

    /** A search stopped before its end: cancelled when its client has gone, else it ran out of time. */
    private static BadQueryException stopped(BooleanSupplier gone) throws SearchCancelledException {
        if (gone.getAsBoolean()) {
            throw cancelled();
        }
        return tooSlow();
    }

    private static SearchCancelledException cancelled() {
        return new SearchCancelledException("the search was cancelled: its client closed the connection");
    }

    private static BadQueryException tooSlow() {
        return new BadQueryException("the query took longer than " + QUERY_TIMEOUT.toSeconds()
                + " s (a very broad wildcard, fuzzy or regular-expression term?); make it more specific");
    }

    /** The query in classic syntax; a syntax error names where it is. */
    Query parse(String text) throws BadQueryException {
        return RequestQuery.parse(text, new EventQueryParser(analyzer));
    }

    /** See {@link EventIndex#highlighter}. */
    Function<StoredEvent, Map<String, List<String>>> highlighter(String query) throws BadQueryException {
        if (query == null) {
            return event -> Map.of();
        }
        Query parsed = RequestQuery.parse(query, EventQueryParser.forHighlights(analyzer));
        return event -> highlights.of(parsed, event);
    }

    /** Every live document's log index, on a reader opened now. */
    void forEachLogIndex(LongConsumer visitor) throws IOException {
        for (IndexPart part : all()) {
            forEachLogIndex(part, visitor);
        }
    }

    private static void forEachLogIndex(IndexPart part, LongConsumer visitor) throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(part.writer)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                NumericDocValues values = leaf.reader().getNumericDocValues(IndexFields.LOG_INDEX);
                if (values == null) {
                    continue;
                }
                var live = leaf.reader().getLiveDocs();
                for (int doc = values.nextDoc(); doc != NumericDocValues.NO_MORE_DOCS; doc = values.nextDoc()) {
                    if (live == null || live.get(doc)) {
                        visitor.accept(values.longValue());
                    }
                }
            }
        }
    }

    /** Live documents per agent, on a reader opened now. */
    Map<String, Long> countsPerAgent() throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        for (IndexPart part : all()) {
            countPerAgent(part, counts);
        }
        return counts;
    }

    private static void countPerAgent(IndexPart part, Map<String, Long> counts) throws IOException {
        try (DirectoryReader reader = DirectoryReader.open(part.writer)) {
            for (LeafReaderContext leaf : reader.leaves()) {
                Terms terms = leaf.reader().terms(IndexFields.AGENT_ID);
                if (terms == null) {
                    continue;
                }
                TermsEnum it = terms.iterator();
                for (BytesRef term = it.next(); term != null; term = it.next()) {
                    counts.merge(term.utf8ToString(), (long) it.docFreq(), Long::sum);
                }
            }
        }
    }
}
