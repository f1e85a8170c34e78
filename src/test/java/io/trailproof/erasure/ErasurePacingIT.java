package io.trailproof.erasure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A paced erasure (src/site/erasure.md#pacing) against the real server: while events keep arriving
 * they are acknowledged, and an event acknowledged during the erasure is found by a search before the
 * erasure has answered (the index indexes in the purge's pauses). Once ingestion stops the erasure
 * ends, and its content is gone as with any erasure. That the rewrite and the merges pause between
 * segments is checked by SegmentRewriteTest and PurgeMergesTest; what it does to the ingest rate,
 * by bench/run-erasure.
 */
class ErasurePacingIT {

    @TempDir
    Path dir;

    @Test
    void ingestionAndSearchesGoOnDuringAPacedErasureWhichEndsOnceIngestionStops() throws Exception {
        // Small segments: the subject's events lie in dozens of log segments; a small share makes the
        // erasure pause 49 times as long as it works while events arrive.
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), "log.segment-bytes", "4096",
                "erasure.share-while-ingesting", "0.02")) {
            Api api = s.api();
            for (int b = 0; b < 20; b++) {   // about one batch per segment
                StringBuilder batch = new StringBuilder("[");
                for (int i = b * 10; i < (b + 1) * 10; i++) {
                    batch.append(i > b * 10 ? "," : "")
                            .append("{\"agent_id\":\"subject\",\"action_input\":{\"note\":\"pacedmarker").append(i)
                            .append("\"}},{\"agent_id\":\"other\",\"action_input\":{\"note\":\"filler").append(i).append("\"}}");
                }
                assertThat(api.post("/v1/batch", batch.append("]").toString()).status()).isEqualTo(201);
            }

            AtomicBoolean ingesting = new AtomicBoolean(true);
            AtomicInteger acknowledged = new AtomicInteger();
            CompletableFuture<Void> ingest = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; ingesting.get(); i++) {
                        if (api.post("/v1/events", "{\"agent_id\":\"other\",\"action_input\":{\"n\":" + i + "}}")
                                .status() == 201) {
                            acknowledged.incrementAndGet();
                        }
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Await.until("events acknowledged", Duration.ofSeconds(30), () -> acknowledged.get() > 10);
            CompletableFuture<Api.Reply> erasure = CompletableFuture.supplyAsync(() -> {
                try {
                    return api.post("/v1/admin/erasures", "{\"agent_id\":\"subject\",\"reason\":\"data subject request\"}");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // The erasure event is recorded before the rewrite starts.
            Await.untilTrue("the erasure recorded", Duration.ofSeconds(30),
                    () -> api.get("/v1/admin/erasures").json().size() == 1);
            int before = acknowledged.get();
            assertThat(api.post("/v1/events", "{\"agent_id\":\"late\",\"action_input\":{\"note\":\"duringerasure\"}}")
                    .status()).isEqualTo(201);
            JsonNode found = api.get("/v1/search?q=duringerasure").json();
            assertThat(found.get("total").asLong()).as("an event acknowledged during the erasure is found").isEqualTo(1);
            Await.until("events acknowledged during the erasure", Duration.ofSeconds(30),
                    () -> acknowledged.get() > before + 10);
            assertThat(erasure).as("the erasure is still running while events arrive").isNotDone();

            ingesting.set(false);
            ingest.get(30, TimeUnit.SECONDS);
            Api.Reply answer = erasure.get(120, TimeUnit.SECONDS);
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.json().get("erased").asLong()).isEqualTo(200);
            assertThat(api.get("/v1/search?q=pacedmarker7").json().get("total").asLong()).isZero();
            assertThat(api.get("/v1/search?q=filler7").json().get("total").asLong()).isEqualTo(1);
            assertThat(api.get("/v1/verify?agent_id=subject").json().get("erased").asLong()).isEqualTo(200);
        }
    }
}
