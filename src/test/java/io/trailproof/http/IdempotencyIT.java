package io.trailproof.http;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code Idempotency-Key} (src/site/ingestion.md#idempotency) against the real server. */
class IdempotencyIT {

    @TempDir
    Path dir;

    static Reply post(Api api, int port, String path, String body, String key, String apiKey) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        if (apiKey != null) {
            b.header("Authorization", "Bearer " + apiKey);
        }
        return api.send(b);
    }

    private static Reply post(InProcessServer s, String path, String body, String key) throws Exception {
        return post(s.api(), s.server().port(), path, body, key, null);
    }

    private static String batch(String agent, int n) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"agent_id\":\"").append(agent).append("\",\"metadata\":{\"i\":")
                    .append(i).append("}}");
        }
        return b.append("]").toString();
    }

    private static long treeSize(InProcessServer s) throws Exception {
        return s.api().get("/v1/merkle/root").json().get("tree_size").asLong();
    }

    @Test
    void theSameBatchTwiceStoresOnceAndReplaysTheAnswerByteForByte() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            String body = batch("twice", 5);
            Reply first = post(s, "/v1/batch", body, "batch-1");
            assertThat(first.status()).isEqualTo(201);
            assertThat(first.header("Idempotent-Replayed")).isNull();
            Reply second = post(s, "/v1/batch", body, "\"batch-1\"");   // the quoted form is the same key
            assertThat(second.status()).isEqualTo(201);
            assertThat(second.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(second.body()).isEqualTo(first.body());
            assertThat(treeSize(s)).isEqualTo(5);
            // without a key the same body is stored again, as ever
            assertThat(post(s, "/v1/batch", body, null).status()).isEqualTo(201);
            assertThat(treeSize(s)).isEqualTo(10);
        }
    }

    @Test
    void tenAtOnceStoreOneSetOfEventsAndEveryAnswerIsTheFirst() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            String body = batch("ten", 200);
            ExecutorService pool = Executors.newFixedThreadPool(10);
            List<Future<Reply>> replies = new ArrayList<>();
            List<Integer> conflicts = Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 10; i++) {
                Callable<Reply> call = () -> {
                    AtomicReference<Reply> answered = new AtomicReference<>();
                    Await.untilTrue("the first request under the key is answered, and this one with it",
                            Duration.ofSeconds(60), () -> {
                                Reply r = post(s, "/v1/batch", body, "ten-at-once");
                                if (r.status() != 409) {
                                    answered.set(r);
                                    return true;
                                }
                                conflicts.add(409);
                                assertThat(r.header("Retry-After")).isEqualTo("1");
                                return false;
                            });
                    return answered.get();
                };
                replies.add(pool.submit(call));
            }
            List<Reply> all = new ArrayList<>();
            for (Future<Reply> f : replies) {
                all.add(f.get());
            }
            pool.shutdown();
            long fresh = all.stream().filter(r -> r.header("Idempotent-Replayed") == null).count();
            assertThat(fresh).isEqualTo(1);
            for (Reply r : all) {
                assertThat(r.status()).isEqualTo(201);
                assertThat(r.body()).isEqualTo(all.get(0).body());
            }
            assertThat(treeSize(s)).isEqualTo(200);
        }
    }

    @Test
    void aDifferentBodyUnderTheSameKeyIs422AndChangesNothing() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            Reply first = post(s, "/v1/batch", batch("a", 2), "k");
            Reply other = post(s, "/v1/batch", batch("b", 2), "k");
            assertThat(other.status()).isEqualTo(422);
            assertThat(other.json().get("error").asText()).contains("different body");
            assertThat(treeSize(s)).isEqualTo(2);
            assertThat(post(s, "/v1/batch", batch("a", 2), "k").body()).isEqualTo(first.body());
        }
    }

    @Test
    void whileTheKeyIsInFlightTheSameBodyIs409AndAnotherIs422() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            String body = batch("flight", 3);
            // Hold the key as a request being processed does: claimed, not yet recorded.
            DedupeKey key = DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "", "/v1/batch", "in-flight");
            DedupeTable.Lookup held = s.server().ledger().dedupe().claim(key,
                    DedupeKey.contentDigest(body.getBytes(StandardCharsets.UTF_8)));
            assertThat(held).isInstanceOf(DedupeTable.Fresh.class);
            Reply busy = post(s, "/v1/batch", body, "in-flight");
            assertThat(busy.status()).isEqualTo(409);
            assertThat(busy.header("Retry-After")).isEqualTo("1");
            assertThat(post(s, "/v1/batch", batch("other", 3), "in-flight").status()).isEqualTo(422);
            assertThat(treeSize(s)).isZero();
            ((DedupeTable.Fresh) held).claim().release();
            assertThat(post(s, "/v1/batch", body, "in-flight").status()).isEqualTo(201);
            assertThat(treeSize(s)).isEqualTo(3);
        }
    }

    /**
     * A clock that, once armed, holds the first request thread that asks it for the time (the
     * sequencer does, under its lock, when it seals a group) until released: a real request is then
     * in flight, its key claimed and its events not yet written.
     */
    static final class HoldingClock extends Clock {
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private volatile boolean armed;

        void arm() {
            armed = true;
        }

        @Override
        public Instant instant() {
            // Only Undertow's worker threads (XNIO-n task-m) are held, never background ones.
            if (armed && Thread.currentThread().getName().contains("task")) {
                synchronized (this) {
                    if (armed) {
                        armed = false;
                        held.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                }
            }
            return Instant.now();
        }

        @Override
        public long millis() {
            return System.currentTimeMillis();
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    @Test
    void aRealRequestHeldInFlightMakesTheSameKey409AndAnotherBody422() throws Exception {
        HoldingClock clock = new HoldingClock();
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"), clock)) {
            String body = batch("held", 50);
            clock.arm();
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<Reply> first = pool.submit(() -> post(s, "/v1/batch", body, "held-key"));
            assertThat(clock.held.await(30, TimeUnit.SECONDS)).as("request held in the sequencer").isTrue();
            Reply busy = post(s, "/v1/batch", body, "held-key");
            assertThat(busy.status()).isEqualTo(409);
            assertThat(busy.header("Retry-After")).isEqualTo("1");
            assertThat(busy.json().get("error").asText()).contains("still being processed");
            assertThat(post(s, "/v1/batch", batch("other", 50), "held-key").status()).isEqualTo(422);
            clock.release.countDown();
            Reply stored = first.get();
            pool.shutdown();
            assertThat(stored.status()).isEqualTo(201);
            Reply replay = post(s, "/v1/batch", body, "held-key");
            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(replay.body()).isEqualTo(stored.body());
            assertThat(treeSize(s)).isEqualTo(50);
        }
    }

    @Test
    void aRefusedRequestRecordsNothingAndACorrectedRetryIsProcessed() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            assertThat(post(s, "/v1/batch", "[{\"agent_id\":\"x\"", "fix-me").status()).isEqualTo(400);
            assertThat(post(s, "/v1/batch", "[]", "fix-me").status()).isEqualTo(400);
            assertThat(post(s, "/v1/events", "{\"agent_id\":\"\"}", "fix-me-too").status()).isEqualTo(400);
            Reply fixed = post(s, "/v1/batch", batch("fixed", 1), "fix-me");
            assertThat(fixed.status()).isEqualTo(201);
            assertThat(fixed.header("Idempotent-Replayed")).isNull();
            assertThat(post(s, "/v1/events", "{\"agent_id\":\"fixed\"}", "fix-me-too").status()).isEqualTo(201);
            assertThat(s.server().ledger().dedupe().table().size()).isEqualTo(2);
        }
    }

    @Test
    void aMalformedKeyIs400() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            for (String bad : new String[] {"has space", "x".repeat(256), "\"\""}) {
                Reply r = post(s, "/v1/batch", batch("m", 1), bad);
                assertThat(r.status()).as(bad).isEqualTo(400);
                assertThat(r.json().get("error").asText()).contains("Idempotency-Key");
            }
            assertThat(treeSize(s)).isZero();
        }
    }

    @Test
    void singleEventsAndAllFailedBatchesAreRecordedToo() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            String event = "{\"agent_id\":\"single\",\"action_name\":\"op\"}";
            Reply first = post(s, "/v1/events", event, "one");
            Reply again = post(s, "/v1/events", event, "one");
            assertThat(first.status()).isEqualTo(201);
            assertThat(again.status()).isEqualTo(201);
            assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(again.body()).isEqualTo(first.body());
            assertThat(again.header("Location")).isEqualTo(first.header("Location"));
            // the same key on the other path is another key
            assertThat(post(s, "/v1/batch", "[" + event + "]", "one").header("Idempotent-Replayed")).isNull();
            String allBad = "[{\"agent_id\":\"\"},{\"nope\":1}]";
            Reply failed = post(s, "/v1/batch", allBad, "all-bad");
            assertThat(failed.status()).isEqualTo(207);
            Reply failedAgain = post(s, "/v1/batch", allBad, "all-bad");
            assertThat(failedAgain.status()).isEqualTo(207);
            assertThat(failedAgain.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(failedAgain.body()).isEqualTo(failed.body());
            String mixed = "[{\"agent_id\":\"m\"},{\"agent_id\":\"\"},{\"agent_id\":\"m\"}]";
            Reply m1 = post(s, "/v1/batch", mixed, "mixed");
            Reply m2 = post(s, "/v1/batch", mixed, "mixed");
            assertThat(m1.status()).isEqualTo(207);
            assertThat(m2.status()).isEqualTo(207);
            assertThat(m2.body()).isEqualTo(m1.body());
            assertThat(treeSize(s)).isEqualTo(1 + 1 + 2);
        }
    }

    @Test
    void concurrentKeyedSingleEventsShareGroupsAndEachReplaysItsOwnAnswer() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<Reply>> first = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                first.add(pool.submit(() -> post(s, "/v1/events", "{\"agent_id\":\"s" + (n % 7) + "\",\"metadata\":{\"n\":"
                        + n + "}}", "single-" + n)));
            }
            List<String> bodies = new ArrayList<>();
            for (Future<Reply> f : first) {
                Reply r = f.get();
                assertThat(r.status()).isEqualTo(201);
                bodies.add(r.body());
            }
            for (int i = 0; i < 200; i++) {
                Reply r = post(s, "/v1/events", "{\"agent_id\":\"s" + (i % 7) + "\",\"metadata\":{\"n\":" + i + "}}", "single-" + i);
                assertThat(r.body()).isEqualTo(bodies.get(i));
            }
            pool.shutdown();
            assertThat(treeSize(s)).isEqualTo(200);
        }
    }

    @Test
    void recordedAnswersSurviveARestartAndTheKeyIsScopedToTheApiKey() throws Exception {
        String[] keys = {"auth.api-keys", "alice-secret:ingest+read,bob-secret:ingest+read"};
        Path data = dir.resolve("data");
        String body = batch("restart", 4);
        Reply first;
        try (InProcessServer s = InProcessServer.start(data, keys)) {
            first = post(s.api(), s.server().port(), "/v1/batch", body, "r", "alice-secret");
            assertThat(first.status()).isEqualTo(201);
            // another API key has its own keys: the same key and body are processed anew
            Reply bob = post(s.api(), s.server().port(), "/v1/batch", body, "r", "bob-secret");
            assertThat(bob.header("Idempotent-Replayed")).isNull();
            assertThat(bob.body()).isNotEqualTo(first.body());
        }
        try (InProcessServer s = InProcessServer.start(data, keys)) {
            Reply again = post(s.api(), s.server().port(), "/v1/batch", body, "r", "alice-secret");
            assertThat(again.status()).isEqualTo(201);
            assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
            assertThat(again.body()).isEqualTo(first.body());
            JsonNode root = s.api().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.server().port()
                    + "/v1/merkle/root")).header("Authorization", "Bearer alice-secret").GET()).json();
            assertThat(root.get("tree_size").asLong()).isEqualTo(8);
        }
    }
}
