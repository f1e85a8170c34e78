package io.trailproof.index;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.Pacer;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The index sorted by newest {@code log_index} first, against a reference in this test: the same
 * documents in a plain, unsorted Lucene index, every match scored and read, then ordered in Java. For
 * seeded random events in many segments (some documents replaced, as an erasure does), queries whose
 * matches all score the same (answered in the index's order, stopping early) and scored ones, every
 * order, filters, and pages anywhere (the first page with its total in one pass, the others stepped
 * over or found by counting): the same totals, the same hits in the same order, the same scores.
 */
class SortedIndexTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    /** One hit of the reference: what the order is made of. */
    private record Ref(long logIndex, float score, long timestamp) {
    }

    private static byte[] payload(Random rnd, long logIndex) throws Exception {
        ObjectNode e = JSON.createObjectNode()
                .put("agent_id", "agent-" + rnd.nextInt(12))
                .put("action_type", rnd.nextBoolean() ? "TOOL_CALL" : "LLM_CALL")
                // names of one to four words: text scores vary with their length
                .put("action_name", String.join(" ", Collections.nCopies(1 + rnd.nextInt(4), "op" + rnd.nextInt(20))))
                .put("timestamp", EventTime.formatRecordedAt(BASE.plusSeconds(rnd.nextInt(50) * 60L)));
        if (rnd.nextBoolean()) {
            e.set("labels", JSON.createObjectNode().put("env", rnd.nextBoolean() ? "prod" : "dev"));
        }
        ObjectNode fields = EventValidator.validate(e);
        return StoredEvent.seal(fields, UUID.randomUUID().toString(),
                EventTime.formatRecordedAt(BASE.plusMillis(logIndex)), 1, EventFields.GENESIS_PREV_HASH, logIndex).payload();
    }

    @Test
    void sortedIndexAnswersAsAnUnsortedReferenceDoes() throws Exception {
        Random rnd = new Random(20261202);
        int n = 1_200;
        Map<Long, byte[]> payloads = new TreeMap<>();
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            // many small segments, each made searchable (flushed) on its own, of several threads' slices
            for (long next = 0; next < n; ) {
                int batch = 1 + rnd.nextInt(rnd.nextBoolean() ? 40 : 700);
                List<byte[]> slice = new ArrayList<>();
                for (int i = 0; i < batch && next < n; i++, next++) {
                    byte[] p = payload(rnd, next);
                    payloads.put(next, p);
                    slice.add(p);
                }
                index.addPayloads(slice);
                index.makeSearchable(next);
            }
            // an erasure's replacement: documents deleted and added again, then merged away
            TreeMap<Long, byte[]> replaced = new TreeMap<>();
            for (int i = 0; i < 40; i++) {
                long at = rnd.nextInt(n);
                byte[] p = payload(rnd, at);
                replaced.put(at, p);
                payloads.put(at, p);
            }
            index.replace(replaced, Pacer.unpaced());
            index.makeSearchable(n);

            try (Directory refDir = new ByteBuffersDirectory()) {
                try (IndexWriter w = new IndexWriter(refDir, new IndexWriterConfig(new IndexAnalyzer()))) {
                    List<Map.Entry<Long, byte[]>> shuffled = new ArrayList<>(payloads.entrySet());
                    Collections.shuffle(shuffled, rnd); // an order unrelated to the log's
                    for (Map.Entry<Long, byte[]> e : shuffled) {
                        w.addDocument(EventDocument.of(e.getKey(), e.getValue()).document());
                    }
                }
                try (DirectoryReader refReader = DirectoryReader.open(refDir)) {
                    compare(index, new IndexSearcher(refReader), rnd);
                }
            }
        }
    }

    private static void compare(LuceneEventIndex index, IndexSearcher ref, Random rnd) throws Exception {
        String[] queries = {"*:*", "agent_id:agent-3", "action_type:TOOL_CALL AND agent_id:agent-1", "op1*",
                "action_name:op1*", "timestamp:[2026-01-01T00:10:00Z TO 2026-01-01T00:20:00Z]",
                "label.env:prod AND NOT agent_id:agent-2", "agent_id:agent-2 OR agent_id:agent-5", "op3",
                "action_name:op13 AND agent_id:agent-7", "op4 OR op5", "(agent_id:agent-4) OR (op6)", "nothing-at-all"};
        int constantSeen = 0;
        int firstPages = 0;
        for (int round = 0; round < 250; round++) {
            String q = queries[rnd.nextInt(queries.length)];
            IndexRequest.Order order = IndexRequest.Order.values()[rnd.nextInt(3)];
            EventFilter filter = switch (rnd.nextInt(4)) {
                case 0 -> new EventFilter("agent-" + rnd.nextInt(12), null, null, null, Map.of());
                case 1 -> new EventFilter(null, "LLM_CALL", BASE.plusSeconds(600), null, Map.of());
                default -> EventFilter.none();
            };
            Query query = RequestQuery.withFilters(index.parse(q), filter);
            if (order == IndexRequest.Order.RELEVANCE && ConstantScores.of(index.parse(q), ref.getIndexReader())) {
                constantSeen++;
            }
            List<Ref> all = reference(ref, query, order);
            // the first page (found with its total in one pass), pages anywhere, pages near the start
            long offset = switch (rnd.nextInt(4)) {
                case 0 -> rnd.nextInt(all.size() + 5);
                case 1 -> 0;
                default -> rnd.nextInt(30);
            };
            if (offset == 0) {
                firstPages++;
            }
            int limit = 1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 120);
            EventIndex.Page page = index.find(new IndexRequest(q, filter, order, offset, limit), 1 + rnd.nextInt(9));
            List<Ref> expected = all.stream().skip(offset).limit(limit).toList();
            String as = String.format("q=%s %s %s offset %d limit %d of %d", q, filter, order, offset, limit, all.size());
            assertThat(page.total()).as(as).isEqualTo(all.size());
            assertThat(page.hits().stream().map(EventIndex.Hit::logIndex).toList()).as(as)
                    .isEqualTo(expected.stream().map(Ref::logIndex).toList());
            for (int i = 0; i < expected.size(); i++) {
                assertThat(page.hits().get(i).score()).as(as).isEqualTo(expected.get(i).score());
            }
        }
        assertThat(constantSeen).as("rounds that took the index's own order").isGreaterThan(30);
        assertThat(firstPages).as("rounds that asked for the first page").isGreaterThan(40);
    }

    /** Every match of {@code query} in the unsorted reference, scored (a search reports scores in every order), in {@code order}. */
    private static List<Ref> reference(IndexSearcher ref, Query query, IndexRequest.Order order) throws Exception {
        int max = Math.max(1, ref.getIndexReader().maxDoc());
        ScoreDoc[] hits = ref.search(query, new TopScoreDocCollectorManager(max, Integer.MAX_VALUE)).scoreDocs;
        List<Ref> out = new ArrayList<>();
        List<LeafReaderContext> leaves = ref.getIndexReader().leaves();
        for (ScoreDoc h : hits) {
            LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(h.doc, leaves));
            out.add(new Ref(value(leaf, IndexFields.LOG_INDEX, h.doc - leaf.docBase), h.score,
                    value(leaf, IndexFields.TIMESTAMP, h.doc - leaf.docBase)));
        }
        Comparator<Ref> newestLogged = Comparator.comparingLong(Ref::logIndex).reversed();
        out.sort(switch (order) {
            case RELEVANCE -> Comparator.comparingDouble((Ref r) -> -r.score()).thenComparing(newestLogged);
            case NEWEST_FIRST -> Comparator.comparingLong(Ref::timestamp).thenComparingLong(Ref::logIndex).reversed();
            case OLDEST_FIRST -> Comparator.comparingLong(Ref::timestamp).thenComparingLong(Ref::logIndex);
        });
        return out;
    }

    private static long value(LeafReaderContext leaf, String field, int doc) throws Exception {
        NumericDocValues v = leaf.reader().getNumericDocValues(field);
        assertThat(v.advanceExact(doc)).isTrue();
        return v.longValue();
    }

    @Test
    void queriesWhoseMatchesAllScoreTheSameAreRecognisedAndOthersAreNot() throws Exception {
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            Random rnd = new Random(3);
            List<byte[]> some = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                some.add(payload(rnd, i));
            }
            index.addPayloads(some);
            index.makeSearchable(20);
            index.commit();
            try (Directory d = FSDirectory.open(dir.resolve("g1")); DirectoryReader reader = DirectoryReader.open(d)) {
                for (String constant : List.of("*:*", "agent_id:agent-3", "agent_id:agent-1 AND action_type:TOOL_CALL",
                        "op1*", "action_name:op*", "sequence:[1 TO 3]", "timestamp:2026-01-01", "agent_id:agent-1^3",
                        "*:* AND NOT agent_id:agent-1", "/op[0-9]+/", "label.env:prod")) {
                    assertThat(ConstantScores.of(index.parse(constant), reader)).as(constant).isTrue();
                    assertThat(ConstantScores.of(RequestQuery.withFilters(index.parse(constant),
                            new EventFilter("agent-1", null, null, null, Map.of())), reader)).as(constant).isTrue();
                }
                for (String scored : List.of("op3", "action_name:op3", "agent_id:agent-1 OR agent_id:agent-2",
                        "agent_id:agent-1 AND op3", "\"op3 op3\"", "op3~1 AND op4", "agent_id:agent-1 OR op1*")) {
                    assertThat(ConstantScores.of(index.parse(scored), reader)).as(scored).isFalse();
                }
            }
        }
    }

    /**
     * An index written before the sort (format 3, documents unsorted) is refused as another format,
     * not as damage: the service then builds the sorted one from the log, with nothing moved aside.
     */
    @Test
    void anUnsortedIndexOfTheFormerFormatIsRefusedAsAnotherFormat() throws Exception {
        Path path = dir.resolve("g1");
        Random rnd = new Random(9);
        try (Directory d = FSDirectory.open(path);
             IndexWriter w = new IndexWriter(d, new IndexWriterConfig(new IndexAnalyzer()))) {
            for (long i = 0; i < 30; i++) {
                Document doc = EventDocument.of(i, payload(rnd, i)).document();
                w.addDocument(doc);
            }
            Map<String, String> data = new HashMap<>();
            data.put(LuceneEventIndex.COMMIT_FORMAT, "3");
            data.put(LuceneEventIndex.COMMIT_LOG_SIZE, "30");
            w.setLiveCommitData(data.entrySet());
            w.commit();
        }
        assertThatThrownBy(() -> LuceneEventIndex.open(path)).isInstanceOf(LuceneEventIndex.OtherFormatException.class)
                .hasMessageContaining("index format 3 is not the current format " + LuceneEventIndex.FORMAT);
    }
}
