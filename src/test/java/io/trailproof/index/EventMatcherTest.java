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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The live stream's per-event matching against the search index: on a seeded corpus of varied
 * events, every query (with and without filters) matches exactly the events the index finds.
 */
public class EventMatcherTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] AGENTS = {"agent-007", "Agent-007", "billing-bot", "db-prod-01", "a"};
    private static final String[] TYPES = {"TOOL_CALL", "LLM_CALL", "tool_call", "PLAN"};
    private static final String[] NAMES = {"search_database", "send_email", "Refund Customer", "query-db-prod-01",
            "summarize", "delete_file"};
    private static final String[] WORDS = {"refund", "timeout", "connection", "reset", "customer", "invoice", "error",
            "Ünïcödé", "naïve", "42", "db-prod-01", "quick brown fox", "failed", "retry", "ok"};
    private static final String[] STATUSES = {"success", "error", "timeout"};

    public static final List<String> QUERIES = List.of(
            "*:*", "refund", "Refund", "REFUND", "refund AND customer", "refund OR timeout", "refund -customer",
            "NOT error", "\"connection reset\"", "\"quick brown\"", "conn*", "*und", "re?und", "retyr~1",
            "agent_id:agent-007", "agent_id:Agent-007", "agent_id:agent*", "agent-007", "db-prod-01",
            "action_type:TOOL_CALL", "action_type:tool_call", "action_name:summarize", "action_name:refund",
            "action_status:error", "error_message:timeout", "input:invoice", "output:ok", "metadata:fox",
            "label.env:prod", "label.team.name:red", "prod", "sequence:[1 TO 3]", "sequence:{5 TO *]",
            "duration_ms:[100 TO 500]", "timestamp:[2026-01-01 TO 2026-01-01]", "timestamp:2026-01-02",
            "recorded_at:[2026-01-01T00:00:00Z TO 2026-01-01T00:00:10Z]", "(refund OR invoice) AND agent_id:a",
            "+timeout +action_status:error", "Ünïcödé", "naive", "naïve", "42", "text:refund", "/re.und/",
            "session_id:s1", "source:sdk", "capture_method:proxy", "id:nothing", "log_index:[0 TO 10]");

    @TempDir
    Path dir;

    /** Varied events as a client sends them (seeded): every search field, nested values, labels, odd text. */
    public static List<ObjectNode> inputs(Random rnd, int n) {
        List<ObjectNode> out = new ArrayList<>();
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < n; i++) {
            String agent = AGENTS[rnd.nextInt(AGENTS.length)];
            ObjectNode e = JSON.createObjectNode().put("agent_id", agent);
            if (rnd.nextInt(4) > 0) {
                e.put("action_type", TYPES[rnd.nextInt(TYPES.length)]);
            }
            if (rnd.nextBoolean()) {
                e.put("action_name", NAMES[rnd.nextInt(NAMES.length)]);
            }
            if (rnd.nextBoolean()) {
                e.put("action_status", STATUSES[rnd.nextInt(STATUSES.length)]);
            }
            if (rnd.nextInt(3) == 0) {
                e.put("error_message", words(rnd, 4));
            }
            if (rnd.nextBoolean()) {
                e.putObject("action_input").put("query", words(rnd, 3)).put("n", rnd.nextInt(100))
                        .putArray("items").add(words(rnd, 1)).add(rnd.nextBoolean());
            }
            if (rnd.nextBoolean()) {
                e.putObject("action_output").put("result", words(rnd, 2));
            }
            if (rnd.nextInt(3) == 0) {
                e.putObject("metadata").putObject("nested").put("note", words(rnd, 3));
            }
            if (rnd.nextInt(3) == 0) {
                e.put("duration_ms", rnd.nextInt(1000));
            }
            if (rnd.nextInt(4) == 0) {
                e.put("session_id", "s" + rnd.nextInt(3));
            }
            if (rnd.nextInt(5) == 0) {
                e.put("source", "sdk").put("capture_method", "proxy");
            }
            if (rnd.nextBoolean()) {
                e.put("timestamp", base.plusSeconds(rnd.nextInt(3 * 86_400)).toString());
            }
            ObjectNode labels = JSON.createObjectNode();
            if (rnd.nextBoolean()) {
                labels.put("env", rnd.nextBoolean() ? "prod" : "dev");
            }
            if (rnd.nextInt(3) == 0) {
                labels.put("team.name", rnd.nextBoolean() ? "red" : "blue");
            }
            if (!labels.isEmpty()) {
                e.set("labels", labels);
            }
            out.add(e);
        }
        return out;
    }

    private static List<StoredEvent> corpus(Random rnd, int n) throws Exception {
        List<StoredEvent> out = new ArrayList<>();
        Map<String, Long> seq = new HashMap<>();
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        int i = 0;
        for (ObjectNode e : inputs(rnd, n)) {
            ObjectNode fields = EventValidator.validate(e);
            long s = seq.merge(e.get("agent_id").asText(), 1L, Long::sum);
            out.add(StoredEvent.seal(fields, UUID.randomUUID().toString(),
                    EventTime.formatRecordedAt(base.plusMillis(i * 97L)), s, EventFields.GENESIS_PREV_HASH, i));
            i++;
        }
        return out;
    }

    private static String words(Random rnd, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : " ").append(WORDS[rnd.nextInt(WORDS.length)]);
        }
        return b.toString();
    }

    @Test
    void everyQueryMatchesTheEventsTheSearchFinds() throws Exception {
        Random rnd = new Random(20261125);
        List<StoredEvent> events = corpus(rnd, 400);
        List<EventFilter> filters = List.of(EventFilter.none(),
                new EventFilter("agent-007", null, null, null, Map.of()),
                new EventFilter(null, "TOOL_CALL", null, null, Map.of()),
                new EventFilter(null, null, null, null, Map.of("env", "prod")),
                new EventFilter("a", "LLM_CALL", null, null, Map.of("team.name", "red")));
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g1"))) {
            index.add(events);
            index.makeSearchable(events.size());
            int nonTrivial = 0;
            List<CandidateEvent> candidates = events.stream().map(e -> new CandidateEvent(e.logIndex(), e.payload())).toList();
            for (String q : QUERIES) {
                for (EventFilter filter : filters) {
                    TreeSet<Long> searched = new TreeSet<>();
                    index.find(new IndexRequest(q, filter, IndexRequest.Order.OLDEST_FIRST, 0, 1000)).hits()
                            .forEach(h -> searched.add(h.logIndex()));
                    EventMatcher matcher = EventMatcher.of(q, filter);
                    TreeSet<Long> matched = new TreeSet<>();
                    for (CandidateEvent c : candidates) { // shared, as the dispatcher shares them
                        if (matcher.matches(c)) {
                            matched.add(c.logIndex());
                        }
                    }
                    assertThat(matched).as("q=%s filter=%s", q, filter).isEqualTo(searched);
                    if (!searched.isEmpty() && searched.size() < events.size()) {
                        nonTrivial++;
                    }
                }
            }
            assertThat(nonTrivial).as("queries that split the corpus").isGreaterThan(QUERIES.size());
        }
    }

    @Test
    void filtersWithoutAQueryMatchTheListing() throws Exception {
        Random rnd = new Random(7);
        List<StoredEvent> events = corpus(rnd, 300);
        try (LuceneEventIndex index = LuceneEventIndex.open(dir.resolve("g2"))) {
            index.add(events);
            index.makeSearchable(events.size());
            for (int round = 0; round < 100; round++) {
                Map<String, String> labels = new HashMap<>();
                if (rnd.nextBoolean()) {
                    labels.put("env", rnd.nextBoolean() ? "prod" : "dev");
                }
                EventFilter filter = new EventFilter(rnd.nextBoolean() ? AGENTS[rnd.nextInt(AGENTS.length)] : null,
                        rnd.nextBoolean() ? TYPES[rnd.nextInt(TYPES.length)] : null, null, null, labels);
                TreeSet<Long> listed = new TreeSet<>();
                index.find(new IndexRequest(null, filter, IndexRequest.Order.OLDEST_FIRST, 0, 1000)).hits()
                        .forEach(h -> listed.add(h.logIndex()));
                EventMatcher matcher = EventMatcher.of(null, filter);
                TreeSet<Long> matched = new TreeSet<>();
                for (StoredEvent e : events) {
                    if (matcher.matches(new CandidateEvent(e.logIndex(), e.payload()))) {
                        matched.add(e.logIndex());
                    }
                }
                assertThat(matched).as("filter %s", filter).isEqualTo(listed);
            }
        }
    }

    @Test
    void aBadQueryIsRefusedWithTheSearchesMessage() {
        assertThatThrownBy(() -> EventMatcher.of("refund AND (", EventFilter.none()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("query syntax error");
        assertThatThrownBy(() -> EventMatcher.of("", EventFilter.none()))
                .isInstanceOf(BadQueryException.class).hasMessageContaining("empty");
    }

    @Test
    void noQueryAndNoFilterMatchesEverythingWithoutReadingTheEvent() throws Exception {
        EventMatcher all = EventMatcher.of(null, EventFilter.none());
        assertThat(all.matchesEverything()).isTrue();
        assertThat(all.matches(new CandidateEvent(0, new byte[] {'x'}))).isTrue();
    }
}
