package io.trailproof.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.retention.RetentionPeriod;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.SearchIndex;
import io.trailproof.index.EventFilter;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerErasures;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.testing.HandClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * Retention passes (src/site/erasure.md#retention) on a real ledger and search index with a hand
 * clock: a pass erases exactly the events recorded before the cutoff (never erasure events) as one
 * erasure event with reason {@code retention}, keeps every hash and root, and a second pass the same
 * day erases nothing and records nothing; the next day's pass erases only the newly old events.
 */
class RetentionScheduleTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static ObjectNode event(String agent, String text) {
        ObjectNode e = JSON.createObjectNode().put("agent_id", agent);
        e.putObject("action_input").put("text", text);
        return e;
    }

    @Test
    void aPassErasesExactlyTheOldEventsOnceAndKeepsTheProofs() throws Exception {
        HandClock clock = new HandClock("2026-01-01T12:00:00Z");
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(4096, 50), clock, new Random(1));
             SearchIndex index = SearchIndex.open(dir, ledger, clock)) {
            ErasureService erasures = new ErasureService(ledger, index);
            List<String> hashes = new ArrayList<>();
            // days 0..9: ten events a day at noon; the old ones are days 0..4 for the first cutoff below
            for (int day = 0; day < 10; day++) {
                for (int i = 0; i < 10; i++) {
                    hashes.add(ledger.append(List.of(event("agent-" + (i % 3), "retainmark" + day + "x" + i))).get(0)
                            .event().hash());
                }
                if (day == 2) {
                    // an erasure by request among the old events: its record must survive every pass
                    erasures.erase(new ErasureService.Selector(null, "agent-1", null, null, null, null),
                            List.of("action_input"), "request", null);
                }
                clock.now = clock.now.plus(Duration.ofDays(1));
            }
            long size = ledger.size();
            byte[] root = ledger.root(size);
            // a retention of P185D, the clock set so that the cutoff falls at the start of day 5
            clock.now = Instant.parse("2026-01-06T00:00:00Z").plus(Duration.ofDays(185));
            RetentionSchedule schedule = new RetentionSchedule(erasures, RetentionPeriod.parse("P185D"), clock);
            Optional<LedgerErasures.ErasureOutcome> first = schedule.pass();
            assertThat(first).isPresent();
            StoredEvent record = first.get().erasure();
            assertThat(record.agentId()).isEqualTo(EventFields.ERASURES_AGENT);
            JsonNode input = record.json().get("action_input");
            assertThat(input.get("reason").asText()).isEqualTo("retention");
            assertThat(input.get("selector").get("retention").asText()).isEqualTo("P185D");
            assertThat(input.get("selector").get("recorded_before").asText()).startsWith("2026-01-06T00:00:00");
            assertThat(input.has("event_ids")).isFalse();

            int erasedOld = 0;
            int client = 0;
            for (long i = 0; i < size; i++) {
                StoredEvent e = StoredEvent.parse(ledger.payloadAt(i));
                if (!e.agentId().equals(EventFields.ERASURES_AGENT)) {
                    assertThat(e.hash()).as("hash of " + i).isEqualTo(hashes.get(client++));
                }
                boolean old = Instant.parse(e.recordedAt()).isBefore(Instant.parse("2026-01-06T00:00:00Z"));
                if (e.agentId().equals(EventFields.ERASURES_AGENT)) {
                    assertThat(e.erased()).as("an erasure event is never erased").isFalse();
                } else if (old) {
                    assertThat(e.erased()).as("old event " + i).isTrue();
                    assertThat(e.json().has("action_input")).isFalse();
                    erasedOld++;
                } else {
                    assertThat(e.erased()).as("recent event " + i).isFalse();
                    assertThat(e.json().at("/action_input/text").asText()).startsWith("retainmark");
                }
            }
            // 50 old events; agent-1's of days 0..2 (3 a day) were erased by the request before
            assertThat(erasedOld).isEqualTo(50);
            assertThat(first.get().erased().count()).isEqualTo(41);
            assertThat(ledger.root(size)).isEqualTo(root);
            assertThat(index.find(new IndexRequest("retainmark0x0", new EventFilter(null, null, null, null, Map.of()), IndexRequest.Order.NEWEST_FIRST,
                    0, 10, null, true)).results()).isEmpty();
            assertThat(index.find(new IndexRequest("retainmark7x0", new EventFilter(null, null, null, null, Map.of()), IndexRequest.Order.NEWEST_FIRST,
                    0, 10, null, true)).results()).hasSize(1);
            assertThat(ledger.verifyAll()).isEqualTo(ledger.agents().size());
            long erasureEvents = ledger.agentPositions(EventFields.ERASURES_AGENT).length;

            // later the same day (the cutoff still before day 5's events): nothing to erase, nothing recorded
            clock.now = clock.now.plus(Duration.ofHours(3));
            assertThat(schedule.pass()).isEmpty();
            assertThat(ledger.agentPositions(EventFields.ERASURES_AGENT)).hasSize((int) erasureEvents);

            // the next day: exactly day 5's ten events
            clock.now = Instant.parse("2026-01-07T00:00:00Z").plus(Duration.ofDays(185));
            Optional<LedgerErasures.ErasureOutcome> next = schedule.pass();
            assertThat(next).isPresent();
            assertThat(next.get().erased().count()).isEqualTo(10);
        }
    }
}
