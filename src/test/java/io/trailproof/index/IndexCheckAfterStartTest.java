package io.trailproof.index;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.ledger.Ledger;
import io.trailproof.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The checksums of the index found at a start are verified after the start, not in it
 * (src/site/search.md#how-the-index-follows-the-log): until then the index answers and says so, and a
 * file that fails the check has the index moved aside and rebuilt from the log as at a start.
 */
class IndexCheckAfterStartTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS = 3_000;

    @TempDir
    Path dir;

    /** Indexes the whole log and stops cleanly: the next open finds a committed index level with the log. */
    private static void indexAll(Path data, Ledger ledger) throws Exception {
        try (SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC())) {
            Await.until("the index holds the log", Duration.ofSeconds(30), () -> index.status().indexed() >= EVENTS);
        }
    }

    /** Events a crash would leave beyond the index's last commit. */
    private static void appendBeyondTheIndex(Ledger ledger) throws Exception {
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(EventValidator.validate(JSON.createObjectNode().put("agent_id", "agent-late")
                    .put("action_type", "TOOL_CALL").put("action_name", "late " + i)));
        }
        ledger.append(batch);
    }

    private static SearchIndex.Results all(SearchIndex index) throws Exception {
        return index.find(new IndexRequest(null, null, IndexRequest.Order.NEWEST_FIRST, 0, 1));
    }

    private static Path liveGeneration(Path data) throws Exception {
        return data.resolve("index").resolve(Files.readString(data.resolve("index/current")).trim());
    }

    @Test
    void anIndexAnswersBeforeItsCheckAndSaysSo() throws Exception {
        Path data = dir.resolve("data");
        try (Ledger ledger = IndexFaultsTest.ledgerWith(data, EVENTS)) {
            indexAll(data, ledger);
            appendBeyondTheIndex(ledger);
            List<Runnable> held = new ArrayList<>();
            try (SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC(), 0, held::add)) {
                assertThat(held).as("following the log and the check are handed over, not run in the open")
                        .hasSize(2);
                assertThat(index.status().indexed()).as("nothing indexed before the follower is released")
                        .isEqualTo(EVENTS);
                assertThat(index.loading()).containsExactly(SearchIndex.INDEX_CHECK);

                held.get(0).run();   // the follower
                Await.until("the index follows the log once released", Duration.ofSeconds(30),
                        () -> index.status().indexed() >= ledger.size());
                SearchIndex.Results before = all(index);
                assertThat(before.total()).isEqualTo(ledger.size());
                assertThat(before.unchecked()).as("an answer before the check says so").isTrue();

                held.get(1).run();   // the check
                assertThat(index.loading()).isEmpty();
                SearchIndex.Results after = all(index);
                assertThat(after.total()).isEqualTo(ledger.size());
                assertThat(after.unchecked()).isFalse();
                assertThat(index.status().lastFailure()).isNull();
            }
        }
    }

    @Test
    void aFileThatFailsTheCheckAfterTheStartHasTheIndexRebuiltFromTheLog() throws Exception {
        Path data = dir.resolve("data");
        try (Ledger ledger = IndexFaultsTest.ledgerWith(data, EVENTS)) {
            indexAll(data, ledger);
            Path generation = liveGeneration(data);
            Path victim;
            try (Stream<Path> files = Files.list(generation)) {
                victim = files.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("segments")
                        && !p.getFileName().toString().equals("write.lock"))
                        .max(Comparator.comparingLong(p -> p.toFile().length())).orElseThrow();
            }
            byte[] bytes = Files.readAllBytes(victim);
            bytes[bytes.length / 2] ^= 0x5a;
            Files.write(victim, bytes);

            List<Runnable> held = new ArrayList<>();
            try (SearchIndex index = SearchIndex.open(data, ledger, Clock.systemUTC(), 0, held::add)) {
                assertThat(index.loading()).as("the open does not read the damaged file whole")
                        .containsExactly(SearchIndex.INDEX_CHECK);
                held.forEach(Runnable::run);
                Await.until("the damaged index is replaced and filled from the log", Duration.ofSeconds(30),
                        () -> index.status().lastFailure() != null && index.status().indexed() >= EVENTS);
                assertThat(index.loading()).isEmpty();
                assertThat(index.status().lastFailure().action()).contains("damaged");
                assertThat(data.resolve("index/damaged")).isDirectory();
                SearchIndex.Results after = all(index);
                assertThat(after.total()).isEqualTo(EVENTS);
                assertThat(after.unchecked()).isFalse();
            }
        }
    }
}
