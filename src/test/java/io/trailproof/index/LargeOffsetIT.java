package io.trailproof.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.testing.Api;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
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
 * A large offset costs no more than a small one. A server limited to 64 MB of heap answers 20
 * concurrent requests for pages far past the end (and far into the middle) of the log with the
 * exact total, without an OutOfMemoryError. A request that collected a hit queue as large as the
 * index (some 40 bytes and a FieldDoc per event) would, 20 at once, ask for more than the heap:
 * about twice at the default 60,000 events, several times at the 1,000,000 of the nightly profile
 * ({@code trailproof.large-offset.events}, src/site/testing.md#nightly-profile). The data directory
 * is filled through the ledger and indexed offline in this JVM, which is much faster than through HTTP.
 */
@Order(RunOrder.LONG)
class LargeOffsetIT {

    private static final int BATCH = 10_000;
    /** A multiple of {@link #BATCH}. */
    private static final int EVENTS = Integer.getInteger("trailproof.large-offset.events", 60_000) / BATCH * BATCH;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void twentyConcurrentFarPagesAnswerWithin64Megabytes() throws Exception {
        Path data = dir.resolve("data");
        long t0 = System.nanoTime();
        try (Ledger ledger = Ledger.open(data, LedgerOptions.defaults(), Clock.systemUTC(), new Random(11))) {
            for (int done = 0; done < EVENTS; done += BATCH) {
                List<ObjectNode> batch = new ArrayList<>(BATCH);
                for (int i = done; i < done + BATCH; i++) {
                    ObjectNode e = JSON.createObjectNode().put("agent_id", "agent-" + (i % 10))
                            .put("action_type", i % 2 == 0 ? "TOOL_CALL" : "LLM_CALL").put("action_name", "step");
                    e.putObject("action_input").put("n", i);
                    batch.add(EventValidator.validate(e));
                }
                ledger.append(batch);
            }
            System.out.printf("LargeOffsetIT: %,d events in the log in %d ms%n", EVENTS, (System.nanoTime() - t0) / 1_000_000);
            assertThat(OfflineIndex.rebuild(data, ledger, n -> { })).isEqualTo(EVENTS);
        }

        System.out.printf("LargeOffsetIT: indexed after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        try (ServerProcess server = ServerProcess.start(data, Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx64m"))) {
            Api api = server.api();
            System.out.printf("LargeOffsetIT: server up after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            String[] far = {
                "/v1/events?offset=999999999",
                "/v1/events?offset=999999999&order=asc&limit=1000",
                "/v1/search?q=step&offset=999999999&limit=1000",
                "/v1/search?q=step&sort=-timestamp&offset=999999999",
                "/v1/events?offset=99999999999999999999&limit=99999999999999999999",
            };
            ExecutorService pool = Executors.newFixedThreadPool(20);
            try {
                List<Future<Api.Reply>> replies = new ArrayList<>();
                List<String> paths = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    String path = far[i % far.length];
                    paths.add(path);
                    replies.add(pool.submit(() -> api.get(path)));
                }
                for (int i = 0; i < replies.size(); i++) {
                    Api.Reply r = replies.get(i).get(60, TimeUnit.SECONDS);
                    assertThat(r.status()).as(paths.get(i) + ": " + r.body()).isEqualTo(200);
                    if (paths.get(i).startsWith("/v1/events")) {
                        assertThat(r.header("X-Total-Count")).isEqualTo(Integer.toString(EVENTS));
                        assertThat(r.json().size()).isZero();
                    } else {
                        assertThat(r.json().get("total").asLong()).isEqualTo(EVENTS);
                        assertThat(r.json().get("results").size()).isZero();
                    }
                }

                System.out.printf("LargeOffsetIT: 20 far pages after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
                // Deep pages inside the results, each the right slice.
                List<Future<Api.Reply>> deep = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    long offset = EVENTS * 3L / 10 + i * (EVENTS * 15L / 100);
                    deep.add(pool.submit(() -> api.get("/v1/events?order=asc&limit=1000&offset=" + offset)));
                }
                for (int i = 0; i < deep.size(); i++) {
                    Api.Reply r = deep.get(i).get(60, TimeUnit.SECONDS);
                    assertThat(r.status()).as(r.body().length() > 300 ? r.body().substring(0, 300) : r.body()).isEqualTo(200);
                    JsonNode page = r.json();
                    assertThat(page.size()).isEqualTo(1000);
                    // No client timestamps: each event's is its recorded_at, which follows the log order.
                    long offset = EVENTS * 3L / 10 + i * (EVENTS * 15L / 100);
                    assertThat(page.get(0).get("log_index").asLong()).isEqualTo(offset);
                    assertThat(page.get(999).get("log_index").asLong()).isEqualTo(offset + 999);
                }
                System.out.printf("LargeOffsetIT: 4 deep pages after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            } finally {
                pool.shutdownNow();
            }
            Api.Reply limitTooLarge = api.get("/v1/search?q=step&limit=99999999999999999999&offset=5");
            assertThat(limitTooLarge.status()).isEqualTo(200);
            assertThat(limitTooLarge.json().get("limit").asInt()).isEqualTo(1000);
            assertThat(limitTooLarge.json().get("results").size()).isEqualTo(1000);
            Api.Reply timestamps = api.get("/v1/timestamps?offset=99999999999999999999&limit=99999999999999999999");
            assertThat(timestamps.status()).as(timestamps.body()).isEqualTo(200);
            assertThat(timestamps.json().size()).isZero();
            assertThat(api.get("/health").status()).as("the server survived").isEqualTo(200);
            assertThat(server.stop()).isZero();
        }
    }
}
