package io.trailproof.erasure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.HeldWork;
import io.trailproof.core.retention.RetentionPeriod;
import io.trailproof.index.EventFilter;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerErasures;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.testing.Await;
import io.trailproof.testing.HandClock;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * A retention pass over many events in a small heap, run in a JVM of its own by
 * {@link RetentionMemoryIT}: records {@code EVENTS} events, lets a hand clock pass the retention
 * period, runs one pass, and prints {@code erased N} once the content is gone from the log and the
 * search index. Arguments: {@code DATA_DIR EVENTS}.
 */
public final class RetentionMemoryMain {

    private RetentionMemoryMain() {
    }

    private static long used() {
        System.gc();
        Runtime r = Runtime.getRuntime();
        return (r.totalMemory() - r.freeMemory()) >> 20;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int events = Integer.parseInt(args[1]);
        ObjectMapper json = new ObjectMapper();
        HandClock clock = new HandClock("2026-01-01T12:00:00Z");
        try (Ledger ledger = Ledger.open(dir, new LedgerOptions(4096, 50), clock, new Random(1));
             SearchIndex index = SearchIndex.open(dir, ledger, clock, 4, HeldWork.none())) {
            String filler = "x".repeat(200);
            for (int done = 0; done < events; ) {
                List<ObjectNode> batch = new ArrayList<>();
                for (int i = 0; i < 2000 && done < events; i++, done++) {
                    ObjectNode e = json.createObjectNode().put("agent_id", "agent-" + (done % 7));
                    e.putObject("action_input").put("text", "keptmark" + done + " " + filler);
                    batch.add(e);
                }
                ledger.append(batch);
            }
            System.out.println("recorded " + events + " at " + Instant.now());
            Await.until("the index caught up", Duration.ofMinutes(5), () -> index.status().upToDate());
            System.out.println("indexed " + events + "; heap in use " + used() + " MB");
            clock.now = clock.now.plus(Duration.ofDays(200));
            ErasureService erasures = new ErasureService(ledger, index);
            Optional<LedgerErasures.ErasureOutcome> pass = new RetentionSchedule(erasures, RetentionPeriod.parse("P185D"),
                    clock).pass();
            System.out.println("passed; heap in use " + used() + " MB");
            long count = pass.orElseThrow().erasure().json().path("action_input").path("count").asLong();
            long found = index.find(new IndexRequest("keptmark0 OR keptmark" + (events - 1),
                    new EventFilter(null, null, null, null, Map.of()), IndexRequest.Order.NEWEST_FIRST, 0, 10, null,
                    true)).total();
            System.out.println("erased " + count + ", found afterwards " + found + ", at " + Instant.now());
        }
    }
}
