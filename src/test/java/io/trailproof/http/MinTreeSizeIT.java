package io.trailproof.http;

import java.time.Duration;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** min_tree_size / X-Min-Tree-Size on reads, and GET /v1/cluster, in the embedded mode. */
class MinTreeSizeIT {

    @TempDir
    Path dir;

    @Test
    void readsWaitForTheSizeAskedOrAnswer503() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir, "cluster.read-wait", "PT1S")) {
            Api api = server.api();
            Api.Reply w = api.post("/v1/events", "{\"agent_id\":\"a\"}");
            assertThat(w.status()).isEqualTo(201);
            assertThat(w.header("X-Tree-Size")).isNull();   // embedded writes are unchanged
            String id = w.json().get("id").asText();

            assertThat(api.get("/v1/events/" + id + "?min_tree_size=1").body()).isEqualTo(w.body());
            assertThat(api.get("/v1/merkle/root?min_tree_size=0").status()).isEqualTo(200);
            Api.Reply header = api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/stats"))
                    .header("X-Min-Tree-Size", "1").GET());
            assertThat(header.status()).isEqualTo(200);

            long t0 = System.nanoTime();
            Api.Reply waited = api.get("/v1/events?min_tree_size=5");
            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertThat(waited.status()).isEqualTo(503);
            assertThat(waited.header("Retry-After")).isNotNull();
            assertThat(waited.json().get("error").asText()).contains("applied 1 events").contains("5");
            assertThat(millis).isGreaterThanOrEqualTo(900);

            Api.Reply bad = api.get("/v1/events?min_tree_size=-3");
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.json().get("error").asText()).contains("min_tree_size");

            Api.Reply cluster = api.get("/v1/cluster");
            assertThat(cluster.status()).isEqualTo(200);
            assertThat(cluster.json().get("mode").asText()).isEqualTo("embedded");
            assertThat(cluster.json().get("applied_size").asLong()).isEqualTo(1);
            assertThat(cluster.json().get("root").asText())
                    .isEqualTo(api.get("/v1/merkle/root").json().get("root").asText());
        }
    }

    @Test
    void aWaitingReadIsAnsweredOnceTheSizeArrives() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir, "cluster.read-wait", "PT20S")) {
            Api api = server.api();
            CompletableFuture<Api.Reply> read = CompletableFuture.supplyAsync(() -> {
                try {
                    return api.get("/v1/events?min_tree_size=1&agent_id=late");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("the read is waiting for the size", Duration.ofSeconds(30),
                    () -> server.server().requestsInFlight() >= 1);
            assertThat(read).isNotDone();
            api.post("/v1/events", "{\"agent_id\":\"late\"}");
            Api.Reply r = read.get(30, TimeUnit.SECONDS);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json().size()).isEqualTo(1);
        }
    }

    @Test
    void waitingReadsHoldNoThreadSoMoreOfThemThanWorkersStillLetAWriteThrough() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir, "cluster.read-wait", "PT30S")) {
            Api api = server.api();
            int waiting = 200;   // more than the 64 worker threads
            ExecutorService pool = Executors.newFixedThreadPool(waiting);
            List<Future<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < waiting; i++) {
                reads.add(pool.submit(() -> api.get("/v1/stats?min_tree_size=1").status()));
            }
            Await.until("every read is waiting for the size", Duration.ofSeconds(60),
                    () -> server.server().requestsInFlight() >= waiting);
            long t0 = System.nanoTime();
            assertThat(api.get("/v1/stats").status()).isEqualTo(200);   // needs a worker thread
            assertThat((System.nanoTime() - t0) / 1_000_000).as("a worker was free").isLessThan(10_000);
            assertThat(api.post("/v1/events", "{\"agent_id\":\"wake\"}").status()).isEqualTo(201);
            for (Future<Integer> r : reads) {
                assertThat(r.get(20, TimeUnit.SECONDS)).isEqualTo(200);
            }
            pool.shutdown();
        }
    }
}
