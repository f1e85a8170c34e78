package io.trailproof.index;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Lucene index against a brute-force model of the filters and orders (seeded random events). */
class LuceneEventIndexTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] AGENTS = {"a", "b", "agent-007", "Agent-007"};
    private static final String[] TYPES = {"TOOL_CALL", "LLM_CALL", "tool_call"};
    private static final String[] ZONES = {"Z", "+02:00", "-05:30", ""};

    @TempDir
    Path dir;

    record Model(StoredEvent event, String agent, String type, Instant time, Map<String, String> labels) {
    }

    private static List<Model> randomEvents(Random rnd, int n) throws Exception {
        List<Model> out = new ArrayList<>();
        Map<String, Long> seq = new HashMap<>();
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < n; i++) {
            String agent = AGENTS[rnd.nextInt(AGENTS.length)];
            String type = TYPES[rnd.nextInt(TYPES.length)];
            Instant t = base.plusSeconds(rnd.nextInt(100) * 600L); // many ties on purpose
            String zone = ZONES[rnd.nextInt(ZONES.length)];
            ZoneOffset offset = zone.isEmpty() || zone.equals("Z") ? ZoneOffset.UTC : ZoneOffset.of(zone);
            String ts = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").format(t.atOffset(offset)) + zone;
            Map<String, String> labels = new HashMap<>();
            if (rnd.nextBoolean()) {
                labels.put("env", rnd.nextBoolean() ? "prod" : "dev");
            }
            if (rnd.nextBoolean()) {
                labels.put("team.name", rnd.nextBoolean() ? "red" : "blue");
            }
            ObjectNode e = JSON.createObjectNode().put("agent_id", agent).put("action_type", type).put("timestamp", ts);
            e.set("labels", JSON.valueToTree(labels));
            ObjectNode fields = EventValidator.validate(e);
            long s = seq.merge(agent, 1L, Long::sum);
            StoredEvent stored = StoredEvent.seal(fields, UUID.randomUUID().toString(),
                    EventTime.formatRecordedAt(base.plusMillis(i)), s, EventFields.GENESIS_PREV_HASH, i);
            out.add(new Model(stored, agent, type, EventTime.parseTimestamp(ts), labels));
        }
        return out;
    }

    @Test
    void listingMatchesABruteForceModel() throws Exception {
        Random rnd = new Random(20260101);
        List<Model> events = randomEvents(rnd, 400);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            index.add(events.stream().map(Model::event).toList());
            index.makeSearchable(events.size());
            for (int round = 0; round < 300; round++) {
                String agent = rnd.nextInt(3) == 0 ? AGENTS[rnd.nextInt(AGENTS.length)] : null;
                String type = rnd.nextInt(3) == 0 ? TYPES[rnd.nextInt(TYPES.length)] : null;
                Instant since = rnd.nextBoolean() ? Instant.parse("2026-01-01T00:00:00Z").plusSeconds(rnd.nextInt(100) * 600L) : null;
                Instant until = rnd.nextBoolean() ? Instant.parse("2026-01-01T00:00:00Z").plusSeconds(rnd.nextInt(100) * 600L) : null;
                Map<String, String> labels = new HashMap<>();
                if (rnd.nextInt(3) == 0) {
                    labels.put("env", rnd.nextBoolean() ? "prod" : "dev");
                }
                if (rnd.nextInt(3) == 0) {
                    labels.put("team.name", "red");
                }
                boolean asc = rnd.nextBoolean();
                int offset = rnd.nextInt(50);
                int limit = 1 + rnd.nextInt(100);
                List<Model> expected = events.stream()
                        .filter(m -> agent == null || m.agent().equals(agent))
                        .filter(m -> type == null || m.type().equals(type))
                        .filter(m -> since == null || !m.time().isBefore(since))
                        .filter(m -> until == null || m.time().isBefore(until))
                        .filter(m -> labels.entrySet().stream().allMatch(l -> l.getValue().equals(m.labels().get(l.getKey()))))
                        .sorted(asc ? Comparator.comparing(Model::time).thenComparingLong(m -> m.event().logIndex())
                                : Comparator.comparing(Model::time).thenComparingLong((Model m) -> m.event().logIndex()).reversed())
                        .toList();
                EventIndex.Page page = index.find(new IndexRequest(null, new EventFilter(agent, type, since, until, labels),
                        asc ? IndexRequest.Order.OLDEST_FIRST : IndexRequest.Order.NEWEST_FIRST, offset, limit));
                assertThat(page.total()).isEqualTo(expected.size());
                assertThat(page.hits().stream().map(EventIndex.Hit::logIndex).toList()).isEqualTo(expected.stream()
                        .skip(offset).limit(limit).map(m -> m.event().logIndex()).toList());
            }
        }
    }

    /**
     * A page anywhere in the order, read from the nearer end and reached by
     * stepping over the hits before it a few at a time, is the same slice of the full order as a
     * single read gives, for every order, with and without a query; past the end it is empty with
     * the exact total.
     */
    @Test
    void deepPagesAreSlicesOfTheFullOrder() throws Exception {
        Random rnd = new Random(20260611);
        List<Model> events = randomEvents(rnd, 300);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            index.add(events.stream().map(Model::event).toList());
            index.makeSearchable(events.size());
            String[] queries = {null, "tool_call", "agent_id:a OR env", "*:*"};
            for (int round = 0; round < 200; round++) {
                String q = queries[rnd.nextInt(queries.length)];
                IndexRequest.Order order = q == null ? (rnd.nextBoolean() ? IndexRequest.Order.NEWEST_FIRST
                        : IndexRequest.Order.OLDEST_FIRST) : IndexRequest.Order.values()[rnd.nextInt(3)];
                EventFilter filter = rnd.nextInt(3) == 0 ? new EventFilter(AGENTS[rnd.nextInt(AGENTS.length)], null, null,
                        null, Map.of()) : EventFilter.none();
                EventIndex.Page all = index.find(new IndexRequest(q, filter, order, 0, 1000));
                int offset = rnd.nextInt(340);
                int limit = 1 + rnd.nextInt(60);
                EventIndex.Page page = index.find(new IndexRequest(q, filter, order, offset, limit), 1 + rnd.nextInt(9));
                assertThat(page.total()).isEqualTo(all.total());
                assertThat(page.hits()).as("offset %d limit %d of %d, %s, q=%s", offset, limit, all.total(), order, q)
                        .isEqualTo(all.hits().stream().skip(offset).limit(limit).toList());
            }
            EventIndex.Page past = index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST,
                    Long.MAX_VALUE, 1000));
            assertThat(past.total()).isEqualTo(events.size());
            assertThat(past.hits()).isEmpty();
        }
    }

    @Test
    void commitRecordsSizeAndLastHashAndReopenKeepsOnlyCommittedEvents() throws Exception {
        List<Model> events = randomEvents(new Random(7), 30);
        Path path = dir.resolve("g1");
        try (LuceneEventIndex index = LuceneEventIndex.open(path)) {
            index.add(events.subList(0, 20).stream().map(Model::event).toList());
            index.commit();
            index.add(events.subList(20, 30).stream().map(Model::event).toList());
            assertThat(index.size()).isEqualTo(30);
        }
        try (LuceneEventIndex index = LuceneEventIndex.open(path)) {
            assertThat(index.size()).isEqualTo(20);
            assertThat(index.lastHash()).isEqualTo(events.get(19).event().hash());
            List<Long> held = new ArrayList<>();
            index.forEachLogIndex(held::add);
            assertThat(held).hasSize(20).doesNotHaveDuplicates();
            Map<String, Long> perAgent = events.subList(0, 20).stream()
                    .collect(Collectors.groupingBy(Model::agent, Collectors.counting()));
            assertThat(index.countsPerAgent()).isEqualTo(perAgent);
            assertThatThrownBy(() -> index.add(List.of(events.get(25).event())))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void keywordFieldsMatchExactlyAndTextFieldsByWord() throws Exception {
        List<Model> events = randomEvents(new Random(3), 200);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            index.add(events.stream().map(Model::event).toList());
            index.makeSearchable(events.size());
            long exact = events.stream().filter(m -> m.agent().equals("agent-007")).count();
            assertThat(find(index, "agent_id:agent-007")).isEqualTo(exact);
            assertThat(find(index, "agent_id:\"agent-007\"")).isEqualTo(exact);
            assertThat(find(index, "agent_id:agent")).isZero();
            long lowerType = events.stream().filter(m -> m.type().equals("tool_call")).count();
            assertThat(find(index, "action_type:tool_call")).isEqualTo(lowerType);
            long team = events.stream().filter(m -> "red".equals(m.labels().get("team.name"))).count();
            assertThat(find(index, "label.team.name:red")).isEqualTo(team);
            // The default field holds every text value, analysed: "agent-007" and "Agent-007" both give "agent" "007".
            long both = events.stream().filter(m -> m.agent().equalsIgnoreCase("agent-007")).count();
            assertThat(find(index, "007")).isEqualTo(both);
        }
    }

    private static StoredEvent event(long logIndex, String json) throws Exception {
        ObjectNode fields = EventValidator.validate((ObjectNode) JSON.readTree(json));
        return StoredEvent.seal(fields, UUID.randomUUID().toString(),
                EventTime.formatRecordedAt(Instant.parse("2026-01-01T00:00:00Z").plusMillis(logIndex)), 1,
                EventFields.GENESIS_PREV_HASH, logIndex);
    }

    /** Log indexes matching {@code q}, best first. */
    private static List<Long> hits(LuceneEventIndex index, String q) throws Exception {
        return index.find(new IndexRequest(q, null, IndexRequest.Order.RELEVANCE, 0, 100)).hits().stream()
                .map(EventIndex.Hit::logIndex).toList();
    }

    @Test
    void theDefaultFieldFindsEveryTextValueThoughEachIsIndexedOnce() throws Exception {
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            index.add(List.of(
                    event(0, """
                            {"agent_id":"golf-1","session_id":"india-2","action_name":"alpha-send",
                             "error_message":"bravo failure","action_input":{"q":"charlie delta"},
                             "action_output":{"r":["echo",42]},"metadata":{"m":"foxtrot"},"labels":{"k":"hotel"}}"""),
                    event(1, """
                            {"agent_id":"kilo","action_input":{"q":"zulu zulu"},"action_output":{"r":"delta"}}"""),
                    event(2, """
                            {"agent_id":"lima","action_input":{"q":"zulu yankee"}}""")));
            index.makeSearchable(3);
            // one word from each text field, keyword value and label value, bare and as text:
            for (String word : List.of("alpha", "send", "bravo", "charlie", "echo", "42", "foxtrot", "golf", "india",
                    "hotel")) {
                assertThat(hits(index, word)).as(word).containsExactly(0L);
                assertThat(hits(index, "text:" + word)).as(word).containsExactly(0L);
                assertThat(hits(index, word.toUpperCase())).as(word).containsExactly(0L);
            }
            assertThat(hits(index, "delta")).containsExactlyInAnyOrder(0L, 1L);
            // phrases, patterns, fuzzy terms and ranges on the default field
            assertThat(hits(index, "\"charlie delta\"")).containsExactly(0L);
            assertThat(hits(index, "\"delta charlie\"")).isEmpty();
            assertThat(hits(index, "\"charlie delta\"~1")).containsExactly(0L);
            assertThat(hits(index, "\"alpha send\"")).containsExactly(0L);
            assertThat(hits(index, "alpha-send")).containsExactly(0L);
            assertThat(hits(index, "golf-1")).containsExactly(0L);
            assertThat(hits(index, "foxt*")).containsExactly(0L);
            assertThat(hits(index, "*oxtro*")).containsExactly(0L);
            assertThat(hits(index, "ech?")).containsExactly(0L);
            assertThat(hits(index, "charlei~")).containsExactly(0L);
            assertThat(hits(index, "bravoo~1")).containsExactly(0L);
            assertThat(hits(index, "/fail.*/")).containsExactly(0L);
            assertThat(hits(index, "text:[hotel TO hotel]")).containsExactly(0L);
            assertThat(hits(index, "hotel AND charlie AND NOT kilo")).containsExactly(0L);
            // explicit fields search only themselves
            assertThat(hits(index, "input:charlie")).containsExactly(0L);
            assertThat(hits(index, "output:charlie")).isEmpty();
            assertThat(hits(index, "output:delta")).containsExactly(1L);
            assertThat(hits(index, "error_message:foxtrot")).isEmpty();
            assertThat(hits(index, "metadata:foxtrot")).containsExactly(0L);
            assertThat(hits(index, "action_name:alpha")).containsExactly(0L);
            assertThat(hits(index, "agent_id:golf-1")).containsExactly(0L);
            assertThat(hits(index, "agent_id:golf")).isEmpty();
            assertThat(hits(index, "label.k:hotel")).containsExactly(0L);
            assertThat(hits(index, "session_id:india")).isEmpty();
            // relevance: more of an event's text matching ranks it higher, as when text held everything
            assertThat(hits(index, "zulu")).containsExactly(1L, 2L);
        }
    }

    @Test
    void anIndexOfAnotherFormatIsRefusedSoThatItsOwnerRebuildsIt() throws Exception {
        Path path = dir.resolve("g1");
        try (LuceneEventIndex index = LuceneEventIndex.open(path)) {
            index.add(randomEvents(new Random(5), 10).stream().map(Model::event).toList());
            index.commit();
        }
        markFormat(path, "0");
        assertThatThrownBy(() -> LuceneEventIndex.open(path)).isInstanceOf(IOException.class)
                .hasMessageContaining("index format 0 is not the current format " + LuceneEventIndex.FORMAT);
    }

    /** Rewrites the commit's format marker, as an index written by another version of EventDocument has it. */
    static void markFormat(Path path, String format) throws Exception {
        try (var directory = FSDirectory.open(path);
             var writer = new IndexWriter(directory, new IndexWriterConfig())) {
            Map<String, String> data = new HashMap<>();
            writer.getLiveCommitData().forEach(e -> data.put(e.getKey(), e.getValue()));
            data.put(LuceneEventIndex.COMMIT_FORMAT, format);
            writer.setLiveCommitData(data.entrySet());
            writer.commit();
        }
    }

    private static long find(LuceneEventIndex index, String q) throws Exception {
        return index.find(new IndexRequest(q, null, IndexRequest.Order.RELEVANCE, 0, 1)).total();
    }
}
