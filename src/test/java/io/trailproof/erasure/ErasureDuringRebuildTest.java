package io.trailproof.erasure;

import java.time.Duration;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventErasure;
import io.trailproof.index.EventFilter;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * An erasure during an online index rebuild (src/site/erasure.md#crash-safety-of-an-erasure): the
 * rebuild has already copied the content into its new index when the log is rewritten; the
 * erasure's purge reaches the index being built too, so the rebuilt index, once live, holds no
 * trace of the content (no term, no stored field) and finds nothing.
 */
class ErasureDuringRebuildTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void aRebuildDoesNotBringErasedContentBack() throws Exception {
        Path data = dir.resolve("data");
        try (Ledger ledger = Ledger.open(data, new LedgerOptions(1 << 20, 5000), Clock.systemUTC(), new Random(1));
             SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC())) {
            for (int b = 0; b < 24; b++) {
                List<ObjectNode> batch = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    int n = b * 500 + i;
                    ObjectNode e = JSON.createObjectNode().put("agent_id", n % 50 == 0 ? "subject" : "other");
                    e.putObject("action_input").put("text", (n % 50 == 0 ? "rebuilderasemark" : "keeprebuild") + n);
                    batch.add(e);
                }
                ledger.append(batch);
            }
            long size = ledger.size();
            Await.until("the index holds the log", Duration.ofSeconds(120), () -> index.status().indexed() >= size);
            index.startRebuild();
            // the erasure is recorded, then waits (before the log is rewritten) until the rebuild has
            // copied the first events, content and all, into its new index
            ledger.erasures().probe(step -> {
                if (step.equals("erasure-recorded")) {
                    while (index.status().rebuild().done() < 2000 && index.status().rebuild().state().equals("running")) {
                        Thread.onSpinWait();
                    }
                }
            });
            new ErasureService(ledger, index).erase(new ErasureService.Selector(null, "subject", null, null, null, null),
                    EventErasure.ERASABLE, "test", null);
            Await.until("the rebuild has ended", Duration.ofSeconds(120),
                    () -> List.of("done", "failed").contains(index.status().rebuild().state()));
            assertThat(index.status().rebuild().state()).isEqualTo("done");
            assertThat(index.find(new IndexRequest("rebuilderasemark0", new EventFilter(null, null, null, null, Map.of()),
                    IndexRequest.Order.NEWEST_FIRST, 0, 10, null, true)).total()).isZero();
            assertThat(index.find(new IndexRequest("keeprebuild1", new EventFilter(null, null, null, null, Map.of()),
                    IndexRequest.Order.NEWEST_FIRST, 0, 10, null, true)).total()).isEqualTo(1);
        }
        assertThat(ErasureIT.indexTermsContain(data, "rebuilderasemark")).isFalse();
        assertThat(ErasureIT.containsAnywhere(data, "rebuilderasemark")).isFalse();
    }
}
