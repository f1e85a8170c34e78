package io.trailproof.ledger;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.testing.Api;
import io.trailproof.testing.LogSurgeon;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kills the real server process with SIGKILL at random moments while concurrent clients post
 * single events and batches, restarts it on the same data directory, and checks the durability
 * promise: every acknowledged event is there with the same hash, every chain verifies, and the root
 * recomputed from the stored bytes equals the served root.
 *
 * <p>Some batches carry an {@code Idempotency-Key} (src/site/ingestion.md#idempotency). One whose answer the kill took is
 * sent again, same key and body, after the restart, as a client would; one that was answered is
 * sent again too and must get its first answer byte for byte. At the end every item of every keyed
 * batch is in the log exactly once.
 */
@Order(RunOrder.LONG)
class CrashSafetyIT {

    /** Kill cycles: 5 by default, 20 in the nightly profile (src/site/testing.md#nightly-profile). */
    private static final int CYCLES = Integer.getInteger("trailproof.crash.cycles", 4);
    private static final int CLIENTS = 4;
    private static final String[] AGENTS = {"crash-a", "crash-b", "crash-c", "crash-d", "crash-e"};

    @TempDir
    Path dir;

    private final Map<String, String> acknowledged = new ConcurrentHashMap<>();
    /** Keyed batches sent whose answer was not received: key -> body. */
    private final Map<String, String> unanswered = new ConcurrentHashMap<>();
    /** Keyed batches answered: key -> body, and key -> the first answer. */
    private final Map<String, String> keyedBodies = new ConcurrentHashMap<>();
    private final Map<String, String> keyedAnswers = new ConcurrentHashMap<>();
    /** Keyed batches sent again after a kill took their answer. */
    private final AtomicInteger retriedAfterKill = new AtomicInteger();

    @Test
    void acknowledgedEventsSurviveKillMinusNine() throws Exception {
        Random random = new Random(20261122L);
        Path data = dir.resolve("data");
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            try (ServerProcess server = ServerProcess.start(data, "--config", writeConfig().toString())) {
                Api api = server.api();
                if (cycle % 5 == 0) {
                    assertAcknowledgedPresent(api);
                }
                retryKeyed(api, random);
                AtomicBoolean running = new AtomicBoolean(true);
                List<Thread> clients = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    long seed = random.nextLong();
                    Thread t = new Thread(() -> postUntilStopped(api, new Random(seed), running), "client-" + c);
                    t.start();
                    clients.add(t);
                }
                Await.pace(Duration.ofMillis(150 + random.nextInt(1200)), "the random moment of the kill, under load");
                server.kill();
                running.set(false);
                for (Thread t : clients) {
                    t.join(30_000);
                }
            }
        }
        assertThat(acknowledged).hasSizeGreaterThan(CYCLES * 10);
        assertThat(keyedAnswers).hasSizeGreaterThan(CYCLES);
        try (ServerProcess server = ServerProcess.start(data, "--config", writeConfig().toString())) {
            Api api = server.api();
            retryKeyed(api, random);
            assertThat(unanswered).isEmpty();
            assertAcknowledgedPresent(api);
            for (String agent : AGENTS) {
                JsonNode v = api.get("/v1/verify?agent_id=" + agent).json();
                assertThat(v.get("valid").asBoolean()).as(agent + ": " + v).isTrue();
            }
            JsonNode root = api.get("/v1/merkle/root").json();
            assertThat(recomputedRootFromDisk(data, root.get("tree_size").asLong()))
                    .isEqualTo(root.get("root").asText());
            assertThat(server.stop()).as("exit code after SIGTERM").isZero();
            System.out.println("CrashSafetyIT: " + acknowledged.size() + " acknowledged events, " + keyedAnswers.size()
                    + " keyed batches, " + retriedAfterKill.get() + " of them sent again after a kill took their answer");
        }
    }

    private Path writeConfig() throws Exception {
        Path config = dir.resolve("crash.properties");
        // Small snapshot interval and segments so crashes land in every phase: mid-snapshot, mid-roll.
        Files.writeString(config, "recovery.snapshot-interval-events=50\nlog.segment-bytes=65536\n");
        return config;
    }

    /**
     * After a restart: every keyed batch whose answer was lost is sent again (it must be stored now,
     * or have been stored once before the kill); some answered ones are sent again and must get
     * their first answer, byte for byte, without storing anything.
     */
    private void retryKeyed(Api api, Random random) throws Exception {
        for (Map.Entry<String, String> e : Map.copyOf(unanswered).entrySet()) {
            Api.Reply r = postKeyed(api, e.getValue(), e.getKey());
            assertThat(r.status()).as("retried key " + e.getKey() + ": " + r.body()).isEqualTo(201);
            retriedAfterKill.incrementAndGet();
            answered(e.getKey(), e.getValue(), r);
            unanswered.remove(e.getKey());
        }
        List<String> keys = new ArrayList<>(keyedAnswers.keySet());
        for (int i = 0; i < Math.min(10, keys.size()); i++) {
            String key = keys.get(random.nextInt(keys.size()));
            Api.Reply r = postKeyed(api, keyedBodies.get(key), key);
            assertThat(r.status()).isEqualTo(201);
            assertThat(r.header("Idempotent-Replayed")).as("replay of " + key).isEqualTo("true");
            assertThat(r.body()).as("replay of " + key).isEqualTo(keyedAnswers.get(key));
        }
    }

    private static Api.Reply postKeyed(Api api, String body, String key) throws Exception {
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/batch"))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    private void answered(String key, String body, Api.Reply r) throws Exception {
        String earlier = keyedAnswers.putIfAbsent(key, r.body());
        if (earlier != null) {
            assertThat(r.body()).as("answer of " + key).isEqualTo(earlier);
        }
        keyedBodies.put(key, body);
        for (JsonNode item : r.json()) {
            acknowledged.put(item.get("event").get("id").asText(), item.get("event").get("hash").asText());
        }
    }

    private void postUntilStopped(Api api, Random random, AtomicBoolean running) {
        while (running.get()) {
            try {
                if (random.nextInt(3) == 0) {
                    String key = "crash-" + random.nextLong();
                    StringBuilder batch = new StringBuilder("[");
                    int n = 1 + random.nextInt(20);
                    for (int i = 0; i < n; i++) {
                        batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"")
                                .append(AGENTS[random.nextInt(AGENTS.length)]).append("\",\"metadata\":{\"key\":\"")
                                .append(key).append("\",\"i\":").append(i).append("}}");
                    }
                    String body = batch.append("]").toString();
                    unanswered.put(key, body);
                    Api.Reply r = postKeyed(api, body, key);
                    if (r.status() == 201) {
                        answered(key, body, r);
                        unanswered.remove(key);
                    } else if (r.status() / 100 == 4) {
                        unanswered.remove(key);   // refused as a whole: nothing stored, nothing owed
                        throw new AssertionError("keyed batch refused: " + r.body());
                    }
                } else if (random.nextBoolean()) {
                    String agent = AGENTS[random.nextInt(AGENTS.length)];
                    Api.Reply r = api.post("/v1/events", "{\"agent_id\":\"" + agent + "\",\"action_name\":\"op\","
                            + "\"action_input\":{\"n\":" + random.nextInt(1000) + "}}");
                    if (r.status() == 201) {
                        JsonNode e = r.json();
                        acknowledged.put(e.get("id").asText(), e.get("hash").asText());
                    }
                } else {
                    StringBuilder batch = new StringBuilder("[");
                    int n = 1 + random.nextInt(30);
                    for (int i = 0; i < n; i++) {
                        batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"")
                                .append(AGENTS[random.nextInt(AGENTS.length)]).append("\",\"metadata\":{\"i\":").append(i)
                                .append("}}");
                    }
                    Api.Reply r = api.post("/v1/batch", batch.append("]").toString());
                    if (r.status() == 201 || r.status() == 207) {
                        for (JsonNode item : r.json()) {
                            if (item.has("event")) {
                                acknowledged.put(item.get("event").get("id").asText(), item.get("event").get("hash").asText());
                            }
                        }
                    }
                }
            } catch (Exception e) {
                // The server was killed: the request was not acknowledged, so nothing is owed for it.
            }
        }
    }

    /**
     * Every acknowledged event is served with its hash: the whole log listed a page at a time (a
     * list waits until the index holds every durable event, src/site/http-api.md#durability-and-read-after-write), and
     * every 50th event read by its id too.
     */
    private void assertAcknowledgedPresent(Api api) throws Exception {
        long size = api.get("/v1/merkle/root").json().get("tree_size").asLong();
        Map<String, String> served = new HashMap<>();
        for (long offset = 0; offset < size; offset += 1000) {
            Api.Reply page = api.get("/v1/events?order=asc&limit=1000&offset=" + offset);
            assertThat(page.status()).as(page.body()).isEqualTo(200);
            page.json().forEach(e -> served.put(e.get("id").asText(), e.get("hash").asText()));
        }
        int i = 0;
        for (Map.Entry<String, String> e : acknowledged.entrySet()) {
            assertThat(served.get(e.getKey())).as("hash of acknowledged event " + e.getKey()).isEqualTo(e.getValue());
            if (i++ % 50 == 0) {
                Api.Reply r = api.get("/v1/events/" + e.getKey());
                assertThat(r.status()).as("acknowledged event " + e.getKey()).isEqualTo(200);
                assertThat(r.json().get("hash").asText()).isEqualTo(e.getValue());
            }
        }
    }

    /** Reads every segment directly, recomputes every event hash, and builds the RFC 9162 root. */
    private static String recomputedRootFromDisk(Path data, long treeSize) throws Exception {
        List<Path> segments;
        try (Stream<Path> files = Files.list(data.resolve("log"))) {
            segments = files.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
        }
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        Set<String> ids = new HashSet<>();
        Set<String> keyedItems = new HashSet<>();
        long index = 0;
        for (Path segment : segments) {
            for (byte[] payload : LogSurgeon.records(segment)) {
                ObjectNode event = (ObjectNode) Api.JSON.readTree(payload);
                String stored = event.get("hash").asText();
                assertThat(event.get("log_index").asLong()).isEqualTo(index);
                event.remove("hash");
                event.remove("log_index");
                String recomputed = HexFormat.of().formatHex(
                        MessageDigest.getInstance("SHA-256").digest(Rfc8785.canonicalize(event)));
                assertThat(recomputed).as("hash of stored event " + index).isEqualTo(stored);
                assertThat(ids.add(event.get("id").asText())).isTrue();
                JsonNode meta = event.get("metadata");
                if (meta != null && meta.has("key")) {
                    String item = meta.get("key").asText() + "#" + meta.get("i").asText();
                    assertThat(keyedItems.add(item)).as("item " + item + " of a keyed batch stored twice").isTrue();
                }
                tree.append(Rfc9162.leafHash(HexFormat.of().parseHex(stored)));
                index++;
            }
        }
        assertThat(index).isEqualTo(treeSize);
        return HexFormat.of().formatHex(MerkleTree.root(tree, treeSize));
    }
}
