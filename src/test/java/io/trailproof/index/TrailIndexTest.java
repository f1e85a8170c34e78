package io.trailproof.index;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The trail of who looked in an index of its own: searches answer as one index holding every event
 * would, and the two indexes never disagree about how much of the log they hold.
 */
class TrailIndexTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] AGENTS = {"agent-0", "agent-1", "b", EventFields.ACCESS_AGENT};
    private static final String[] WORDS = {"wire_transfer", "export", "refund", "search", "agent", "ledger", "alpha",
            "bravo", "charlie", "delta"};
    private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    /** Events of three agents and the trail, their texts of varying length, many timestamps tied. */
    private static List<StoredEvent> events(Random rnd, long from, int n) throws Exception {
        List<StoredEvent> out = new ArrayList<>();
        for (long i = from; i < from + n; i++) {
            String agent = AGENTS[rnd.nextInt(AGENTS.length)];
            ObjectNode e = JSON.createObjectNode().put("agent_id", "x")
                    .put("action_type", agent.equals(EventFields.ACCESS_AGENT) ? "ACCESS" : rnd.nextBoolean() ? "TOOL_CALL" : "LLM_CALL")
                    .put("action_status", rnd.nextInt(4) == 0 ? "error" : "ok")
                    .put("action_name", words(rnd, 1 + rnd.nextInt(3)))
                    .put("timestamp", BASE.plusSeconds(rnd.nextInt(50) * 60L).toString());
            e.putObject("action_input").put("q", words(rnd, 1 + rnd.nextInt(8)));
            e.putObject("labels").put("env", rnd.nextBoolean() ? "prod" : "dev");
            ObjectNode fields = EventValidator.validate(e);
            fields.put("agent_id", agent); // the trail's agent is refused from clients; the service writes it
            out.add(StoredEvent.seal(fields, UUID.randomUUID().toString(),
                    EventTime.formatRecordedAt(BASE.plusMillis(i)), i + 1, EventFields.GENESIS_PREV_HASH, i));
        }
        return out;
    }

    private static String words(Random rnd, int n) {
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < n; k++) {
            b.append(k == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    @Test
    void searchesAnswerAsOneIndexHoldingEveryEventWould() throws Exception {
        Random rnd = new Random(40);
        List<StoredEvent> events = events(rnd, 0, 400);
        IndexAnalyzer analyzer = new IndexAnalyzer();
        try (LuceneEventIndex split = LuceneEventIndex.open(dir.resolve("g1"));
             IndexPart one = IndexPart.open(dir.resolve("one"), IndexOptions.of(0), 16, analyzer)) {
            split.add(events);
            split.makeSearchable(events.size());
            for (StoredEvent e : events) {
                one.writer.addDocument(EventDocument.of(e.logIndex(), e.payload()).document());
            }
            one.searchers.maybeRefreshBlocking();
            LuceneSearches reference = new LuceneSearches(one, null, analyzer);
            SummaryRequest summary = new SummaryRequest(List.of(IndexFields.AGENT_ID, IndexFields.ACTION_STATUS,
                    "label.env"), Duration.ofMinutes(7));
            String[] queries = {null, "wire_transfer", "export OR refund", "\"alpha bravo\"", "agent*", "delta -charlie",
                    "agent_id:trailproof.access", "action_name:search"};
            String[] filters = {null, "agent-0", EventFields.ACCESS_AGENT, "nobody"};
            int compared = 0;
            for (String q : queries) {
                for (String agent : filters) {
                    for (IndexRequest.Order order : IndexRequest.Order.values()) {
                        for (long offset : new long[] {0, 150}) {
                            IndexRequest request = new IndexRequest(q, new EventFilter(agent, null, null, null, Map.of()),
                                    order, offset, 1 + rnd.nextInt(40), summary, false);
                            EventIndex.Page expected = reference.find(request, 40);
                            EventIndex.Page actual = split.find(request, 40);
                            String what = q + " agent=" + agent + " " + order + " offset=" + offset;
                            assertThat(actual.total()).as(what).isEqualTo(expected.total());
                            assertThat(actual.summary()).as(what).isEqualTo(expected.summary());
                            if (agent == null || q == null) {
                                // the same statistics (summed over both indexes): the same scores and pages
                                assertThat(actual.hits()).as(what).isEqualTo(expected.hits());
                            } else if (order != IndexRequest.Order.RELEVANCE) {
                                // one agent's search scores by the statistics of the index it reads
                                assertThat(logIndexes(actual)).as(what).isEqualTo(logIndexes(expected));
                            } else {
                                assertThat(actual.hits()).as(what).hasSameSizeAs(expected.hits());
                            }
                            compared++;
                        }
                    }
                }
            }
            assertThat(compared).isEqualTo(queries.length * filters.length * 3 * 2);
            assertThat(split.countsPerAgent()).isEqualTo(reference.countsPerAgent());
            List<Long> all = new ArrayList<>();
            split.forEachLogIndex(all::add);
            assertThat(all).hasSize(events.size()).doesNotHaveDuplicates();
        }
    }

    @Test
    void theTrailsRecordsAreInTheirOwnIndexAndAgentsSearchesNeverReadIt() throws Exception {
        Path g = dir.resolve("g1");
        List<StoredEvent> events = events(new Random(7), 0, 200);
        long trail = events.stream().filter(e -> e.agentId().equals(EventFields.ACCESS_AGENT)).count();
        try (LuceneEventIndex index = LuceneEventIndex.open(g)) {
            index.add(events);
            index.commit();
        }
        assertThat(docs(g)).isEqualTo(events.size() - trail);
        assertThat(docs(g.resolve(LuceneEventIndex.TRAIL_DIR))).isEqualTo(trail).isPositive();
        // With the trail's readers closed, a search of an agent still answers: it never opens them.
        IndexAnalyzer analyzer = new IndexAnalyzer();
        try (IndexPart agents = IndexPart.open(dir.resolve("agents"), IndexOptions.of(0), 16, analyzer);
             IndexPart records = IndexPart.open(dir.resolve("trail"), IndexOptions.of(0), 16, analyzer)) {
            for (StoredEvent e : events) {
                EventDocument.Built built = EventDocument.of(e.logIndex(), e.payload());
                (built.trail() ? records : agents).writer.addDocument(built.document());
            }
            agents.searchers.maybeRefreshBlocking();
            LuceneSearches searches = new LuceneSearches(agents, records, analyzer);
            records.searchers.close();
            EventIndex.Page page = searches.find(new IndexRequest("wire_transfer", new EventFilter("agent-0", null, null,
                    null, Map.of()), IndexRequest.Order.RELEVANCE, 0, 10), Paging.STEP);
            assertThat(page.total()).isEqualTo(events.stream().filter(e -> e.agentId().equals("agent-0")
                    && e.payload().length > 0 && new String(e.payload()).contains("wire_transfer")).count());
            assertThatThrownBy(() -> searches.find(new IndexRequest("wire_transfer", null, IndexRequest.Order.RELEVANCE,
                    0, 10), Paging.STEP)).isInstanceOf(AlreadyClosedException.class);
            assertThatThrownBy(() -> searches.find(new IndexRequest(null, new EventFilter(EventFields.ACCESS_AGENT,
                    null, null, null, Map.of()), IndexRequest.Order.NEWEST_FIRST, 0, 10), Paging.STEP))
                    .isInstanceOf(AlreadyClosedException.class);
        }
    }

    /**
     * A stop between the two commits (the trail's is first) leaves the trail's index ahead: opened
     * again, it holds what the other's commit covers, and indexing the log from there adds each
     * event once.
     */
    /**
     * Making the index searchable for a search of an agent refreshes agents' events alone: the
     * trail's newest records stay unflushed until a search that reads the trail asks for them.
     */
    @Test
    void aSearchOfAnAgentNeverRefreshesTheTrailsIndex() throws Exception {
        List<StoredEvent> events = events(new Random(11), 0, 300);
        EventFilter agent = new EventFilter("agent-0", null, null, null, Map.of());
        EventFilter trail = new EventFilter(EventFields.ACCESS_AGENT, null, null, null, Map.of());
        long agentEvents = events.stream().filter(e -> e.agentId().equals("agent-0")).count();
        long trailRecords = events.stream().filter(e -> e.agentId().equals(EventFields.ACCESS_AGENT)).count();
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            index.add(events);
            index.makeSearchable(events.size(), agent);
            assertThat(index.find(all(agent)).total()).isEqualTo(agentEvents).isPositive();
            assertThat(index.find(all(trail)).total()).isZero();
            assertThat(index.find(all(null)).total()).isEqualTo(events.size() - trailRecords);

            index.makeSearchable(events.size(), trail);
            assertThat(index.find(all(trail)).total()).isEqualTo(trailRecords).isPositive();
            assertThat(index.find(all(null)).total()).isEqualTo(events.size());
        }
    }

    private static IndexRequest all(EventFilter filter) {
        return new IndexRequest(null, filter, IndexRequest.Order.NEWEST_FIRST, 0, 1);
    }

    @Test
    void aStopBetweenTheTwoCommitsIsCutBackToTheEarlierOne() throws Exception {
        Path g = dir.resolve("g1");
        Random rnd = new Random(11);
        List<StoredEvent> first = events(rnd, 0, 100);
        List<StoredEvent> second = events(rnd, 100, 100);
        Path saved = dir.resolve("saved");
        try (LuceneEventIndex index = LuceneEventIndex.open(g)) {
            index.add(first);
            index.commit();
            copyAgentsIndex(g, saved);
            index.add(second);
            index.commit();
        }
        // as if the agents' index had not committed the second time
        restoreAgentsIndex(saved, g);
        try (LuceneEventIndex index = LuceneEventIndex.open(g)) {
            assertThat(index.size()).isEqualTo(100);
            index.add(second);
            index.commit();
            index.makeSearchable(200);
            assertThat(index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1)).total())
                    .isEqualTo(200);
        }
        try (LuceneEventIndex index = LuceneEventIndex.open(g)) {
            assertThat(index.size()).isEqualTo(200);
            List<Long> all = new ArrayList<>();
            index.forEachLogIndex(all::add);
            assertThat(all).hasSize(200).doesNotHaveDuplicates();
        }
    }

    /** The trail's index behind the other's cannot come from a stop (its commit is first): it is damage. */
    @Test
    void aTrailIndexBehindTheOtherIsDamage() throws Exception {
        Path g = dir.resolve("g1");
        Random rnd = new Random(12);
        Path saved = dir.resolve("saved");
        try (LuceneEventIndex index = LuceneEventIndex.open(g)) {
            index.add(events(rnd, 0, 50));
            index.commit();
            copyTree(g.resolve(LuceneEventIndex.TRAIL_DIR), saved);
            index.add(events(rnd, 50, 50));
            index.commit();
        }
        IndexDirectory.deleteTree(g.resolve(LuceneEventIndex.TRAIL_DIR));
        copyTree(saved, g.resolve(LuceneEventIndex.TRAIL_DIR));
        assertThatThrownBy(() -> LuceneEventIndex.open(g)).isInstanceOf(IOException.class)
                .isNotInstanceOf(LuceneEventIndex.OtherFormatException.class)
                .hasMessageContaining("committed at 50 log entries, agents' events' at 100");
        IndexDirectory.deleteTree(g.resolve(LuceneEventIndex.TRAIL_DIR));
        assertThatThrownBy(() -> LuceneEventIndex.open(g)).isInstanceOf(IOException.class)
                .isNotInstanceOf(LuceneEventIndex.OtherFormatException.class);
    }

    /** An index of the earlier layout (the trail among agents' events) is rebuilt by its owner, as any other format. */
    @Test
    void anIndexHoldingTheTrailAmongAgentsEventsIsOfAnotherFormat() throws Exception {
        Path g = dir.resolve("g1");
        try (LuceneEventIndex index = LuceneEventIndex.open(g)) {
            index.add(events(new Random(3), 0, 20));
            index.commit();
        }
        IndexDirectory.deleteTree(g.resolve(LuceneEventIndex.TRAIL_DIR));
        LuceneEventIndexTest.markFormat(g, "4");
        assertThatThrownBy(() -> LuceneEventIndex.open(g)).isInstanceOf(LuceneEventIndex.OtherFormatException.class)
                .hasMessageContaining("index format 4 is not the current format 5");
    }

    private static List<Long> logIndexes(EventIndex.Page page) {
        return page.hits().stream().map(EventIndex.Hit::logIndex).toList();
    }

    private static int docs(Path index) throws IOException {
        try (var directory = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(directory)) {
            return reader.numDocs();
        }
    }

    /** The files of the agents' index (the generation without the trail's sub-directory). */
    private static void copyAgentsIndex(Path generation, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(generation)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }

    private static void restoreAgentsIndex(Path saved, Path generation) throws IOException {
        try (Stream<Path> files = Files.list(generation)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.delete(f);
            }
        }
        copyAgentsIndex(saved, generation);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
    }
}
