package io.trailproof.stream;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.index.IndexRequest;
import io.trailproof.index.SearchIndex;
import io.trailproof.ledger.ChainSlice;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.LedgerViews.ChainReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded-random property (src/site/storage.md#readers-see-one-readable-size): once
 * {@link Ledger#append} returns (the events are acknowledged), each event is readable through every
 * read path of the service at once, with nothing written after it: by id, the stream's catch-up and
 * live dispatch ({@link EventSource}), the search index's follower, an evidence export's chain slice,
 * verification, a replayed batch answer ({@link Ledger#scanViews}) and the files a backup copies.
 * Event sizes straddle the log readers' 2 KB, 4 KB and 256 KB reads; the segment size makes groups
 * start segments. The store-level property with side frames is
 * {@code io.trailproof.store.ReadAfterAcknowledgementTest}.
 */
class ReadPathsAfterAcknowledgementTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int[] BOUNDARIES = {2048, 4096, 256 << 10};
    /** How long the index follower may take for one idle group before the property counts as broken. */
    private static final long INDEX_WAIT_MILLIS = 5_000;

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedEventIsReadableAtOnceThroughEveryReadPath() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            runSeed(seed);
        }
    }

    private void runSeed(long seed) throws Exception {
        Random random = new Random(seed);
        Path data = dir.resolve("seed-" + seed);
        Clock clock = Clock.systemUTC();
        long segmentBytes = random.nextBoolean() ? 300 << 10 : 1 << 20;
        try (Ledger ledger = Ledger.open(data, new LedgerOptions(segmentBytes, 500), clock, new Random(seed));
             SearchIndex index = SearchIndex.open(data, ledger, clock)) {
            EventSource source = EventSource.of(ledger);
            int groups = 12 + random.nextInt(6);
            for (int g = 0; g < groups; g++) {
                int n = 1 + random.nextInt(3);
                List<ObjectNode> batch = new ArrayList<>();
                List<String> tokens = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String token = "tok" + seed + "g" + g + "e" + i;
                    tokens.add(token);
                    batch.add(event("agent-" + random.nextInt(3), token, textSize(random)));
                }
                List<AppendOutcome> out = ledger.append(batch);
                // acknowledged: from here on nothing is written until every path has been checked
                long size = ledger.size();
                long first = size - n;
                String shape = "seed " + seed + ", group " + g + " (" + out.stream()
                        .map(o -> o.event().payload().length + " bytes").toList() + ", log indexes " + first + ".."
                        + (size - 1) + ")";
                for (int i = 0; i < n; i++) {
                    assertThat(out.get(i).error()).as(shape).isNull();
                    String id = out.get(i).event().id();
                    Optional<byte[]> byId = ledger.eventPayload(id);
                    assertThat(byId).as("event %s by id after %s", id, shape).isPresent();
                    assertThat(new String(byId.get(), StandardCharsets.UTF_8)).contains(tokens.get(i));
                }
                checkScans(ledger, source, first, size, tokens, shape);
                checkIndex(index, size, tokens, shape);
                for (ObjectNode e : batch) {
                    String agent = e.get("agent_id").asText();
                    ChainSlice slice = ledger.slice(agent, null, null).orElseThrow();
                    long[] last = {-1};
                    slice.forEach((logIndex, payload) -> last[0] = logIndex);
                    assertThat(last[0]).as("export of %s after %s", agent, shape).isEqualTo(slice.lastLogIndex());
                    ChainReport report = ledger.verify(agent).orElseThrow();
                    assertThat(report.valid()).as("verify %s after %s: %s", agent, shape, report.failure()).isTrue();
                }
                assertThat(ledger.logFiles().committed(size)).as("backup files after %s", shape).isNotEmpty();
            }
        }
    }

    /** The stream's catch-up from every position in the group, and a replayed answer's views. */
    private static void checkScans(Ledger ledger, EventSource source, long first, long size, List<String> tokens,
                                   String shape) throws Exception {
        for (long from = Math.max(0, first - 1); from < size; from++) {
            List<String> seen = new ArrayList<>();
            source.scan(from, size, (logIndex, payload) -> seen.add(new String(payload, StandardCharsets.UTF_8)));
            assertThat(seen).as("stream catch-up from %d after %s", from, shape).hasSize((int) (size - from));
            assertThat(seen.get(seen.size() - 1)).contains(tokens.get(tokens.size() - 1));
        }
        List<String> views = new ArrayList<>();
        ledger.scanViews(first, size, (logIndex, buf, offset, length) ->
                views.add(new String(buf, offset, length, StandardCharsets.UTF_8)));
        assertThat(views).as("replayed answer after %s", shape).hasSize(tokens.size());
        for (int i = 0; i < tokens.size(); i++) {
            assertThat(views.get(i)).contains(tokens.get(i));
        }
    }

    /** The search index's follower reaches the acknowledged size by itself, and finds each event. */
    private static void checkIndex(SearchIndex index, long size, List<String> tokens, String shape) throws Exception {
        try {
            Await.until("the follower indexed " + size + " events", Duration.ofMillis(INDEX_WAIT_MILLIS),
                    () -> index.status().indexed() >= size);
        } catch (AssertionError timedOut) {
            // the assertion below says how far it got and why
        }
        assertThat(index.status().indexed()).as("events indexed after %s (last failure %s)", shape,
                index.status().lastFailure()).isEqualTo(size);
        for (String token : tokens) {
            SearchIndex.Results found = index.find(new IndexRequest(token, null, IndexRequest.Order.RELEVANCE, 0, 10));
            assertThat(found.total()).as("search for %s after %s", token, shape).isEqualTo(1);
        }
    }

    /** A text size putting the stored event a little below or above one of the readers' boundaries. */
    private static int textSize(Random random) {
        if (random.nextInt(4) == 0) {
            return 1 + random.nextInt(300);
        }
        int b = BOUNDARIES[random.nextInt(10) < 8 ? random.nextInt(2) : 2];
        return Math.max(1, b - 450 + random.nextInt(600));
    }

    private static ObjectNode event(String agent, String token, int textSize) {
        StringBuilder text = new StringBuilder(textSize).append(token);
        while (text.length() < textSize) {
            text.append(" filler");
        }
        ObjectNode e = JSON.createObjectNode().put("agent_id", agent).put("action_type", "TOOL_CALL");
        e.putObject("action_input").put("arguments", text.toString());
        return e;
    }
}
