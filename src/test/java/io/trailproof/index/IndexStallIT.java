package io.trailproof.index;

import io.trailproof.testing.Await;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * List and search requests waiting for a stalled index hold no worker thread,
 * so ingestion goes on at its usual pace while hundreds of them wait (more than the 64 workers the
 * server has); once the index moves again every one of them is answered with the new events. A
 * request that waits longer than {@code index.catch-up-wait-ms} is answered from what is indexed,
 * with a header saying how far behind that was.
 */
class IndexStallIT {

    /** More waiting requests than worker threads: before, each one held a worker for up to 30 s. */
    private static final int WAITING = 200;
    /** The header of an answer from an index that has not caught up, as the API documents it. */
    private static final String INDEX_BEHIND = "X-Index-Behind";

    @TempDir
    Path dir;

    @Test
    void requestsWaitingForAStalledIndexDoNotStallIngestion() throws Exception {
        // Waiting longer than the test takes: every request is still waiting when the index moves again.
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), "index.catch-up-wait-ms", "600000")) {
            Api api = server.api();
            assertThat(api.post("/v1/batch", "[{\"agent_id\":\"a\"},{\"agent_id\":\"b\"}]").status()).isEqualTo(201);
            assertThat(api.get("/v1/events?limit=1").header("X-Total-Count")).isEqualTo("2");

            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            try (AutoCloseable stalled = server.server().searchIndex().holdFollower()) {
                Await.until("the follower waits at the hold", Duration.ofSeconds(30),
                        () -> server.server().searchIndex().followerHeld());
                assertThat(api.post("/v1/events", "{\"agent_id\":\"a\",\"action_name\":\"needle\"}").status()).isEqualTo(201);
                for (int i = 0; i < WAITING; i++) {
                    String path = i % 2 == 0 ? "/v1/events?agent_id=a" : "/v1/search?q=needle";
                    waiting.add(client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + server.server().port() + path)).timeout(Duration.ofSeconds(60)).build(),
                            HttpResponse.BodyHandlers.ofString()));
                }
                Await.until("every request is waiting for the index", Duration.ofSeconds(60),
                        () -> server.server().requestsInFlight() >= WAITING);
                assertThat(waiting).noneMatch(CompletableFuture::isDone);

                for (int round = 0; round < 3; round++) {
                    long start = System.nanoTime();
                    Api.Reply batch = api.post("/v1/batch", "[{\"agent_id\":\"a\",\"action_name\":\"needle\"},"
                            + "{\"agent_id\":\"c\"}]");
                    Api.Reply single = api.post("/v1/events", "{\"agent_id\":\"c\"}");
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertThat(batch.status()).as(batch.body()).isEqualTo(201);
                    assertThat(single.status()).as(single.body()).isEqualTo(201);
                    // Usually a few milliseconds; the bound only has to tell that from the 30 s wait.
                    assertThat(millis).as("a batch and an event while %d requests wait for the index", WAITING)
                            .isLessThan(5_000);
                }
                assertThat(waiting).noneMatch(CompletableFuture::isDone);
            }
            for (int i = 0; i < WAITING; i++) {
                HttpResponse<String> r = waiting.get(i).get(30, TimeUnit.SECONDS);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(r.headers().firstValue(INDEX_BEHIND)).isEmpty();
                if (i % 2 == 0) {
                    // Read after write: at least the event acknowledged before the request came.
                    assertThat(Long.parseLong(r.headers().firstValue("X-Total-Count").orElseThrow())).isGreaterThanOrEqualTo(2);
                } else {
                    assertThat(Api.JSON.readTree(r.body()).get("total").asLong()).isGreaterThanOrEqualTo(1);
                }
            }
            assertThat(api.get("/v1/search?q=needle").json().get("total").asLong()).isEqualTo(4);
        }
    }

    /**
     * A search the index cannot catch up with in time is answered from what is indexed, never with a
     * bare 503, and says how many acknowledged events it may lack; once the index catches up the
     * answer is complete again and the header is gone.
     */
    @Test
    void aSearchWhileTheIndexIsBehindIsAnsweredFromWhatIsIndexedAndSaysHowFar() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"), "index.catch-up-wait-ms", "1000")) {
            Api api = server.api();
            assertThat(api.post("/v1/events", "{\"agent_id\":\"a\",\"action_name\":\"needle\"}").status()).isEqualTo(201);
            assertThat(api.get("/v1/search?q=needle").header(INDEX_BEHIND)).isNull();
            try (AutoCloseable stalled = server.server().searchIndex().holdFollower()) {
                Await.until("the follower waits at the hold", Duration.ofSeconds(30),
                        () -> server.server().searchIndex().followerHeld());
                assertThat(api.post("/v1/batch", "[{\"agent_id\":\"a\",\"action_name\":\"needle\"},"
                        + "{\"agent_id\":\"b\",\"action_name\":\"needle\"}]").status()).isEqualTo(201);
                long start = System.nanoTime();
                CompletableFuture<Api.Reply> searching = CompletableFuture.supplyAsync(() -> get(api, "/v1/search?q=needle"));
                Api.Reply list = api.get("/v1/events?agent_id=a");
                Api.Reply search = searching.get(60, TimeUnit.SECONDS);
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(search.status()).as(search.body()).isEqualTo(200);
                assertThat(search.header(INDEX_BEHIND)).isEqualTo("2");
                assertThat(search.json().get("total").asLong()).isEqualTo(1);
                assertThat(list.status()).as(list.body()).isEqualTo(200);
                assertThat(list.header(INDEX_BEHIND)).isEqualTo("2");
                assertThat(list.header("X-Total-Count")).isEqualTo("1");
                // Each waited for the index its 1 s (index.catch-up-wait-ms) before it answered from what was indexed.
                assertThat(millis).isBetween(1_000L, 60_000L);
            }
            Api.Reply caughtUp = api.get("/v1/search?q=needle");
            assertThat(caughtUp.json().get("total").asLong()).isEqualTo(3);
            assertThat(caughtUp.header(INDEX_BEHIND)).isNull();
        }
    }

    private static Api.Reply get(Api api, String path) {
        try {
            return api.get(path);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
