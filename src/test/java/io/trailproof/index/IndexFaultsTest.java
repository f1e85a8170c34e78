package io.trailproof.index;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The index under a fault-injecting Lucene directory: a write that fails while the follower
 * indexes never leaves an event in the index twice, and a writer that Lucene closed after such a
 * failure is reopened, visibly.
 */
class IndexFaultsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS = 5_000;

    @TempDir
    Path dir;

    /** A ledger in {@code data} holding {@code events} events of 7 agents, each with words to invert. */
    static Ledger ledgerWith(Path data, int events) throws Exception {
        Ledger ledger = Ledger.open(data, LedgerOptions.defaults(), Clock.systemUTC(), new Random(1));
        for (int done = 0; done < events; done += 1000) {
            List<ObjectNode> batch = new ArrayList<>();
            for (int i = done; i < Math.min(events, done + 1000); i++) {
                ObjectNode e = JSON.createObjectNode().put("agent_id", "agent-" + (i % 7)).put("action_type", "TOOL_CALL")
                        .put("action_name", "step " + i);
                e.putObject("action_input").put("n", i).put("text", "some words to invert for event " + i);
                batch.add(EventValidator.validate(e));
            }
            ledger.append(batch);
        }
        return ledger;
    }

    /** Waits until the index holds the whole log again, after at least one injected failure. */
    private static void awaitRecovered(SearchIndex index, FaultyDirectory.Program program, long size) throws Exception {
        try {
            Await.until("the index holds the whole log after an injected failure", Duration.ofSeconds(30),
                    () -> program.failures() > 0 && index.status().indexed() >= size);
        } catch (AssertionError timedOut) {
            // the assertions below say which part is missing
        }
        assertThat(program.failures()).as("the fault was injected").isPositive();
        assertThat(index.status().indexed()).as("the follower indexed the whole log after the failure").isEqualTo(size);
    }

    @Test
    void aWriteFailureInTheMiddleOfIndexingLeavesNoEventTwice() throws Exception {
        for (long failAt : new long[] {3, 400, 4000}) {
            Path data = dir.resolve("data-" + failAt);
            try (Ledger ledger = ledgerWith(data, EVENTS)) {
                FaultyDirectory.Program program = new FaultyDirectory.Program().failOnceAtWrite(failAt);
                // A 1 MB buffer makes the follower flush segments while it adds a batch: the failure
                // lands in the middle of addPayloads, not only at a commit.
                SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC(),
                        new IndexOptions(1, program));
                try {
                    awaitRecovered(index, program, EVENTS);
                    SearchIndex.Results all = index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1));
                    assertThat(all.total()).as("listing total after a failure at write " + failAt).isEqualTo(EVENTS);
                    SearchIndex.Results one = index.find(new IndexRequest("step", new EventFilter("agent-3", null, null, null,
                            Map.of()), IndexRequest.Order.RELEVANCE, 0, 1));
                    assertThat(one.total()).isEqualTo((EVENTS + 3) / 7);
                    assertThat(index.status().lastFailure()).as("the failure is visible").isNotNull();
                    assertThat(index.status().lastFailure().action()).contains("reopened");
                } finally {
                    index.close();
                }
                OfflineIndex.CheckReport check = OfflineIndex.check(data, ledger);
                assertThat(check.differences()).as("index check after a failure at write " + failAt).isEmpty();
            }
        }
    }

    /**
     * A writer that Lucene closes after a fatal error (here a flush that fails while a search makes
     * new events visible) is reopened by the follower: the search that was waiting is answered once
     * the disk works again, and the failure shows in the index status.
     */
    @Test
    void aWriterClosedByAFatalErrorIsReopenedVisibly() throws Exception {
        Path data = dir.resolve("data");
        try (Ledger ledger = ledgerWith(data, 3000)) {
            FaultyDirectory.Program program = new FaultyDirectory.Program();
            SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC(), new IndexOptions(16, program));
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                IndexRequest all = new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1);
                assertThat(index.find(all).total()).isEqualTo(3000);
                assertThat(index.status().lastFailure()).isNull();

                program.failFromWrite(1); // the disk fails from now on
                List<ObjectNode> more = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    more.add(EventValidator.validate(JSON.createObjectNode().put("agent_id", "late").put("action_name", "x")));
                }
                ledger.append(more);
                Future<SearchIndex.Results> waiting = pool.submit(() -> index.find(all));
                Await.until("the failed writer is noticed", Duration.ofSeconds(30), () -> index.status().lastFailure() != null);
                SearchIndex.Failure failure = index.status().lastFailure();
                assertThat(failure).as("the failed writer was noticed and reopened").isNotNull();
                assertThat(failure.error()).contains("injected write failure");
                assertThat(failure.action()).contains("reopened");

                program.heal();
                assertThat(waiting.get(25, TimeUnit.SECONDS).total()).as("the waiting search is answered").isEqualTo(3500);
                assertThat(index.status().indexed()).isEqualTo(3500);
            } finally {
                pool.shutdownNow();
                index.close();
            }
            assertThat(OfflineIndex.check(data, ledger).differences()).isEmpty();
        }
    }
}
