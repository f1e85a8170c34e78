package io.trailproof.index;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A page in relevance order takes each hit's score from its sort key instead of scoring the hits
 * again; the reference is Lucene's own second scoring ({@code TopFieldCollector.populateScores}),
 * which every page used before: the same floats, bit for bit, for first pages and deep pages read
 * from either end, over several segments of seeded random text.
 */
class PagingScoresTest {

    @Test
    void relevancePagesCarryTheScoresASecondScoringGives() throws Exception {
        try (Directory dir = randomText()) {
            try (DirectoryReader reader = DirectoryReader.open(dir)) {
                assertThat(reader.leaves().size()).isGreaterThan(5);
                IndexSearcher searcher = new IndexSearcher(reader);
                Sort relevance = RequestQuery.sort(IndexRequest.Order.RELEVANCE);
                QueryParser parser = new QueryParser("text", new StandardAnalyzer());
                for (String q : List.of("wire", "wire transfer", "refund AND user", "\"customer invoice\"", "alpha OR beta^3")) {
                    Query query = searcher.rewrite(parser.parse(q));
                    long total = searcher.count(query);
                    assertThat(total).as(q).isGreaterThan(20);
                    List<ScoreDoc> first = Paging.firstPage(searcher, query, relevance, true, 20).hits();
                    sameAsScoredAgain(searcher, query, first, q + ", first page");
                    for (long offset : new long[] {0, 7, total / 2, total - 20}) {
                        List<ScoreDoc> page = Paging.page(searcher, query, relevance, true, offset, 20, total, 50);
                        sameAsScoredAgain(searcher, query, page, q + ", offset " + offset);
                    }
                }
            }
        }
    }

    /**
     * A first page in relevance order found in one pass (what a query the index cannot count gets)
     * is the page a count and a collection give: the same total, hits, order and score bits, for
     * conjunctions, filters, disjunctions, negations and phrases, as the query comes from the
     * parser and as the service wraps it with its filters.
     */
    @Test
    void aFirstPageInOnePassIsThePageACountAndACollectionGive() throws Exception {
        try (Directory dir = randomText(); DirectoryReader reader = DirectoryReader.open(dir)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            Sort relevance = RequestQuery.sort(IndexRequest.Order.RELEVANCE);
            QueryParser parser = new QueryParser("text", new StandardAnalyzer());
            for (String q : List.of("wire", "refund AND user", "+wire +transfer -mail", "alpha OR beta^3",
                    "\"customer invoice\"", "delete AND (user OR mail)", "zzz AND wire")) {
                for (Query query : List.of(parser.parse(q), RequestQuery.withFilters(parser.parse(q), EventFilter.none()))) {
                    long total = searcher.count(query);
                    for (int limit : new int[] {1, 20, 5_000}) {
                        Paging.FirstPage first = Paging.firstPage(searcher, query, relevance, true, limit);
                        assertThat(first.total()).as(q).isEqualTo(total);
                        List<ScoreDoc> twoPasses = total == 0 ? List.of()
                                : Paging.page(searcher, query, relevance, true, 0, (int) Math.min(limit, total), total, 50);
                        assertThat(first.hits()).as(q + ", limit " + limit).hasSameSizeAs(twoPasses);
                        for (int i = 0; i < twoPasses.size(); i++) {
                            assertThat(first.hits().get(i).doc).as(q + ", hit " + i).isEqualTo(twoPasses.get(i).doc);
                            assertThat(Float.floatToIntBits(first.hits().get(i).score)).as(q + ", hit " + i)
                                    .isEqualTo(Float.floatToIntBits(twoPasses.get(i).score));
                        }
                    }
                }
            }
        }
    }

    @Test
    void onlyASingleTermOrEveryEventIsCountedByTheIndex() throws Exception {
        QueryParser parser = new QueryParser("text", new StandardAnalyzer());
        for (String q : List.of("wire", "*:*", "wire^2")) {
            assertThat(Paging.countedByIndex(parser.parse(q))).as(q).isTrue();
            assertThat(Paging.countedByIndex(RequestQuery.withFilters(parser.parse(q), EventFilter.none()))).as(q).isTrue();
        }
        for (String q : List.of("wire AND transfer", "wire OR transfer", "-wire", "\"customer invoice\"", "wir*")) {
            assertThat(Paging.countedByIndex(parser.parse(q))).as(q).isFalse();
            assertThat(Paging.countedByIndex(RequestQuery.withFilters(parser.parse(q), EventFilter.none()))).as(q).isFalse();
        }
    }

    /** 2,000 documents of seeded random words in more than five segments, each with its {@code log_index}. */
    private static Directory randomText() throws Exception {
        Random random = new Random(17);
        String[] words = {"wire", "transfer", "refund", "delete", "user", "mail", "customer", "invoice", "alpha", "beta"};
        Directory dir = new ByteBuffersDirectory();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new StandardAnalyzer()).setMaxBufferedDocs(97)
                .setMergePolicy(NoMergePolicy.INSTANCE))) {
            for (int i = 0; i < 2_000; i++) {
                StringBuilder text = new StringBuilder();
                for (int k = 0, n = 1 + random.nextInt(12); k < n; k++) {
                    text.append(words[random.nextInt(words.length)]).append(' ');
                }
                Document d = new Document();
                d.add(new TextField("text", text.toString(), Field.Store.NO));
                d.add(new NumericDocValuesField(IndexFields.LOG_INDEX, i));
                w.addDocument(d);
            }
        }
        return dir;
    }

    private static void sameAsScoredAgain(IndexSearcher searcher, Query query, List<ScoreDoc> hits, String what)
            throws Exception {
        assertThat(hits).as(what).isNotEmpty();
        ScoreDoc[] again = new ScoreDoc[hits.size()];
        for (int i = 0; i < again.length; i++) {
            again[i] = new ScoreDoc(hits.get(i).doc, Float.NaN, hits.get(i).shardIndex);
        }
        TopFieldCollector.populateScores(again, searcher, query);
        for (int i = 0; i < again.length; i++) {
            assertThat(Float.floatToIntBits(hits.get(i).score)).as(what + ", hit " + i)
                    .isEqualTo(Float.floatToIntBits(again[i].score));
            assertThat(hits.get(i).score).as(what).isNotNaN();
        }
    }
}
