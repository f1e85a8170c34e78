package io.trailproof.index;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
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
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Facets and histogram (src/site/console.md) against counts made by brute force over the same seeded events. */
class MatchSummariesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant BASE = Instant.parse("2026-03-01T00:00:00Z");

    @TempDir
    Path dir;

    record Model(StoredEvent event, Map<String, String> values, Instant time) {
    }

    /** Events over 30 agents (more than the 20 values a facet lists), a few types, statuses, sources and labels. */
    private static List<Model> events(Random rnd, int n) throws Exception {
        List<Model> out = new ArrayList<>();
        Map<String, Long> seq = new HashMap<>();
        for (int i = 0; i < n; i++) {
            Map<String, String> v = new TreeMap<>();
            // skewed, so counts differ and ties also occur
            v.put("agent_id", "agent-" + Math.min(rnd.nextInt(40), rnd.nextInt(40)));
            v.put("action_type", List.of("TOOL_CALL", "LLM_CALL", "AGENT_CALL").get(rnd.nextInt(3)));
            v.put("action_status", rnd.nextInt(5) == 0 ? "error" : "success");
            v.put("source", rnd.nextBoolean() ? "sdk" : "otlp");
            ObjectNode e = JSON.createObjectNode();
            v.forEach(e::put);
            ObjectNode labels = e.putObject("labels");
            if (rnd.nextBoolean()) {
                String env = rnd.nextBoolean() ? "prod" : "dev";
                labels.put("env", env);
                v.put("label.env", env);
            }
            Instant t = BASE.plusSeconds(rnd.nextInt(3 * 86_400)).plusNanos(rnd.nextInt(1_000_000) * 1_000L);
            e.put("timestamp", t.toString());
            String name = rnd.nextBoolean() ? "refund the order" : "read the order";
            e.put("action_name", name);
            v.put("name", name);
            ObjectNode fields = EventValidator.validate(e);
            long s = seq.merge(v.get("agent_id"), 1L, Long::sum);
            StoredEvent stored = StoredEvent.seal(fields, UUID.randomUUID().toString(),
                    EventTime.formatRecordedAt(BASE.plusMillis(i)), s, EventFields.GENESIS_PREV_HASH, i);
            out.add(new Model(stored, v, t));
        }
        return out;
    }

    private static List<MatchSummary.FacetCount> expectedFacet(List<Model> matches, String field) {
        Map<String, Long> counts = new HashMap<>();
        for (Model m : matches) {
            String value = m.values().get(field);
            if (value != null) {
                counts.merge(value, 1L, Long::sum);
            }
        }
        return counts.entrySet().stream().map(e -> new MatchSummary.FacetCount(e.getKey(), e.getValue()))
                .sorted(Comparator.comparingLong(MatchSummary.FacetCount::count).reversed()
                        .thenComparing(MatchSummary.FacetCount::value))
                .limit(SummaryRequest.TOP_VALUES).toList();
    }

    private static List<MatchSummary.Bucket> expectedHistogram(List<Model> matches, Duration width) {
        long w = width.toNanos() / 1_000;
        TreeMap<Long, Long> counts = new TreeMap<>();
        for (Model m : matches) {
            long micros = m.time().getEpochSecond() * 1_000_000 + m.time().getNano() / 1_000;
            counts.merge(Math.floorDiv(micros, w), 1L, Long::sum);
        }
        List<MatchSummary.Bucket> out = new ArrayList<>();
        if (counts.isEmpty()) {
            return out;
        }
        for (long b = counts.firstKey(); b <= counts.lastKey(); b++) {
            out.add(new MatchSummary.Bucket(b * w, counts.getOrDefault(b, 0L)));
        }
        return out;
    }

    @Test
    void countsAreExactOverEveryMatchForRandomQueriesAndFilters() throws Exception {
        Random rnd = new Random(20261125);
        List<Model> events = events(rnd, 3_000);
        List<String> fields = List.of("agent_id", "action_type", "action_status", "source", "label.env", "label.none");
        List<Duration> widths = List.of(Duration.ofMinutes(15), Duration.ofHours(1), Duration.ofDays(1),
                Duration.ofSeconds(7), Duration.ofMillis(1500));
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g"))) {
            // in several commits, so that the counts are merged over more than one segment
            for (int from = 0; from < events.size(); from += 700) {
                index.add(events.subList(from, Math.min(events.size(), from + 700)).stream().map(Model::event).toList());
                index.commit();
            }
            index.makeSearchable(events.size());
            for (int round = 0; round < 60; round++) {
                String query = rnd.nextBoolean() ? null : rnd.nextBoolean() ? "refund" : "action_status:error";
                Predicate<Model> byQuery = query == null ? m -> true : query.equals("refund")
                        ? m -> m.values().get("name").contains("refund")
                        : m -> m.values().get("action_status").equals("error");
                String agent = rnd.nextInt(3) == 0 ? "agent-" + rnd.nextInt(5) : null;
                String status = rnd.nextInt(3) == 0 ? "success" : null;
                String source = rnd.nextInt(3) == 0 ? "otlp" : null;
                EventFilter filter = new EventFilter(agent, null, status, source, null, null, Map.of());
                Predicate<Model> byFilter = m -> (agent == null || agent.equals(m.values().get("agent_id")))
                        && (status == null || status.equals(m.values().get("action_status")))
                        && (source == null || source.equals(m.values().get("source")));
                List<Model> matches = events.stream().filter(byQuery.and(byFilter)).toList();
                List<String> asked = new ArrayList<>(fields);
                Collections.shuffle(asked, rnd);
                asked = asked.subList(0, 1 + rnd.nextInt(asked.size()));
                Duration width = widths.get(rnd.nextInt(widths.size()));
                if (width.equals(Duration.ofSeconds(7)) || width.equals(Duration.ofMillis(1500))) {
                    width = Duration.ofHours(2); // narrow widths are for the refusal test below
                }
                EventIndex.Page page = index.find(new IndexRequest(query, filter, IndexRequest.Order.NEWEST_FIRST, 0, 5,
                        new SummaryRequest(asked, width), false));
                assertThat(page.total()).isEqualTo(matches.size());
                for (String field : asked) {
                    assertThat(page.summary().facets().get(field)).as("round %d field %s", round, field)
                            .isEqualTo(expectedFacet(matches, field));
                }
                assertThat(page.summary().facets().keySet()).containsExactlyElementsOf(asked);
                assertThat(page.summary().histogram()).isEqualTo(expectedHistogram(matches, width));
                assertThat(page.summary().histogram().stream().mapToLong(MatchSummary.Bucket::count).sum())
                        .isEqualTo(matches.size());
            }
        }
    }

    /**
     * A search of every event is summarised from the term dictionary and the points tree, not from
     * the events' values: the same counts as brute force for bucket widths that split the tree's
     * cells anywhere, over several segments; once a document is deleted (an erasure's replacement
     * before its merge) the walk over every match is taken instead, with the same answer.
     */
    @Test
    void everyEventIsCountedFromTermsAndPointsWithTheSameCountsAsBruteForce() throws Exception {
        List<Model> all = events(new Random(20261202), 3_001);
        List<String> fields = List.of("agent_id", "action_type", "action_status", "source", "label.env", "label.none");
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g"))) {
            for (int from = 0; from < 3_000; from += 700) {
                index.add(all.subList(from, Math.min(3_000, from + 700)).stream().map(Model::event).toList());
                index.commit();
            }
            index.makeSearchable(3_000);
            for (int pass = 0; pass < 2; pass++) {
                List<Model> events = all.subList(0, 3_000 + pass);
                for (Duration width : List.of(Duration.ofMinutes(1), Duration.ofMinutes(15), Duration.ofSeconds(433),
                        Duration.ofHours(1), Duration.ofDays(1), Duration.ofDays(30))) {
                    for (String q : new String[] {null, "*:*"}) {
                        MatchSummary s = index.find(new IndexRequest(q, null, IndexRequest.Order.NEWEST_FIRST, 0, 1,
                                new SummaryRequest(fields, width), false)).summary();
                        for (String field : fields) {
                            assertThat(s.facets().get(field)).as("%s %s pass %d", field, width, pass)
                                    .isEqualTo(expectedFacet(events, field));
                        }
                        assertThat(s.histogram()).as("%s pass %d", width, pass).isEqualTo(expectedHistogram(events, width));
                    }
                }
                if (pass == 1) {
                    break;
                }
                // events replaced by themselves: deleted documents, seen once one more event is searchable
                TreeMap<Long, byte[]> same = new TreeMap<>();
                for (int i = 0; i < 3_000; i += 97) {
                    same.put((long) i, all.get(i).event().payload());
                }
                index.replaceDocuments(same);
                index.add(List.of(all.get(3_000).event()));
                index.makeSearchable(3_001);
            }
        }
    }

    @Test
    void aFacetListsTheTwentyMostFrequentValuesTiesInValueOrder() throws Exception {
        List<Model> events = events(new Random(7), 2_000);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g"))) {
            index.add(events.stream().map(Model::event).toList());
            index.makeSearchable(events.size());
            MatchSummary s = index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1,
                    new SummaryRequest(List.of("agent_id"), null), false)).summary();
            long distinct = events.stream().map(m -> m.values().get("agent_id")).distinct().count();
            assertThat(distinct).isGreaterThan(SummaryRequest.TOP_VALUES);
            assertThat(s.facets().get("agent_id")).hasSize(SummaryRequest.TOP_VALUES)
                    .isEqualTo(expectedFacet(events, "agent_id"));
            assertThat(s.histogram()).isEmpty();
        }
    }

    @Test
    void bucketsAlignToMultiplesOfTheWidthFromTheEpochAndIncludeEmptyOnes() throws Exception {
        List<Model> events = events(new Random(3), 3);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g"))) {
            index.add(events.stream().map(Model::event).toList());
            index.makeSearchable(events.size());
            Duration hour = Duration.ofHours(1);
            List<MatchSummary.Bucket> h = index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1,
                    new SummaryRequest(List.of(), hour), false)).summary().histogram();
            assertThat(h).allSatisfy(b -> assertThat(b.startMicros() % 3_600_000_000L).isZero());
            assertThat(h.size()).isEqualTo(expectedHistogram(events, hour).size());
            assertThat(h).isEqualTo(expectedHistogram(events, hour));
        }
    }

    @Test
    void aHistogramOfMoreThanTenThousandBucketsIsRefusedWithWhatToDo() throws Exception {
        List<Model> events = events(new Random(11), 200);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g"))) {
            index.add(events.stream().map(Model::event).toList());
            index.makeSearchable(events.size());
            assertThatThrownBy(() -> index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1,
                    new SummaryRequest(List.of(), Duration.ofSeconds(7)), false)))
                    .isInstanceOf(BadQueryException.class)
                    .hasMessageContaining("the limit is 10000").hasMessageContaining("longer bucket duration");
        }
    }

    @Test
    void aRequestForUnknownFieldsOrABadWidthIsRefusedBeforeAnySearch() {
        assertThatThrownBy(() -> new SummaryRequest(List.of("hash"), null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SummaryRequest(List.of("label."), null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SummaryRequest(List.of("agent_id", "agent_id"), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SummaryRequest(List.of(), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SummaryRequest(List.of(), Duration.ofNanos(1500)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new SummaryRequest(List.of("label.team.name"), Duration.ofNanos(1000)).isEmpty()).isFalse();
        assertThat(SummaryRequest.facetable("source")).isTrue();
    }
}
