package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static io.trailproof.cluster.ClusterNodes.event;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cluster mode against a real Kafka cluster (1 controller + 3 brokers in this JVM, started once):
 * three trailproof nodes ingest concurrently and hold byte-identical events at the same log_index;
 * a stopped node catches up; a node killed with kill -9 (a separate JVM) during ingest restarts and
 * catches up; a fresh node converges (timestamp records too); a timestamp requested on one node is
 * stored and verifies on every node; a record that cannot be applied stops the apply loop; the partition leader dies during ingest and no
 * acknowledged event is lost; with every broker down writes answer 503 and reads go on. The tests
 * run in order and share the cluster (each builds on the state the previous one left); it is this
 * class's own, not the shared one ({@link io.trailproof.testing.SharedKafka}), because the last
 * two stop its brokers. Scheduled
 * work (timestamps, witnesses) and forged timestamp and cosignature records: {@link ClusterSchedulingIT}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(RunOrder.LONGEST)
class ClusterIT {

    private static final String TOPIC = "trailproof-it";
    private static final String WRITE_TIMEOUT = "PT5S";

    @TempDir
    static Path dirs;

    private static KafkaTestCluster kafka;
    private static TestTsa tsa;
    private static Path tsaRoot;
    private static final Map<String, InProcessServer> nodes = new HashMap<>();

    @BeforeAll
    static void startCluster() throws Exception {
        long t0 = System.nanoTime();
        kafka = KafkaTestCluster.start();
        tsa = TestTsa.start();
        tsaRoot = tsa.writeRootPem(dirs.resolve("tsa-ca.pem"));
        System.out.println("kafka started in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        for (String id : List.of("n1", "n2", "n3")) {
            start(id);
        }
    }

    @AfterAll
    static void stopCluster() throws Exception {
        for (InProcessServer s : nodes.values()) {
            s.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (tsa != null) {
            tsa.close();
        }
    }


    private static void start(String id) throws Exception {
        nodes.put(id, ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, TOPIC, WRITE_TIMEOUT,
                "cluster.read-wait", "PT20S",
                "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "15000"));
    }

    private static Api api(String id) {
        return nodes.get(id).api();
    }


    /** The size every node must reach, then every event and the root compared byte for byte across them. */
    private static Map<String, List<JsonNode>> assertIdentical(List<String> ids, long size) throws Exception {
        Map<String, Api> apis = new LinkedHashMap<>();
        for (String id : ids) {
            apis.put(id, api(id));
        }
        return assertIdentical(apis, size);
    }

    private static Map<String, List<JsonNode>> assertIdentical(Map<String, Api> apis, long size) throws Exception {
        return ClusterNodes.assertIdentical(apis, size);
    }

    /** The ids of {@code events}. */
    private static Set<String> ids(List<JsonNode> events) {
        Set<String> ids = new HashSet<>();
        events.forEach(e -> ids.add(e.get("id").asText()));
        return ids;
    }

    /** A span of the test's export (trace fixed), started {@code startMillis} after a fixed instant. */
    private static String span(String spanId, String name, int startMillis) {
        long start = 1_764_086_400_000_000_000L + startMillis * 1_000_000L;
        return "{\"traceId\":\"0af7651916cd43dd8448eb211c80319c\",\"spanId\":\"" + spanId + "\",\"name\":\"" + name
                + "\",\"startTimeUnixNano\":\"" + start + "\",\"endTimeUnixNano\":\"" + (start + 1_000_000) + "\"}";
    }

    @Test
    @Order(1)
    void threeNodesIngestingConcurrentlyHoldByteIdenticalLogs() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(9);
        List<Future<Integer>> work = new ArrayList<>();
        for (String id : List.of("n1", "n2", "n3")) {
            for (int t = 0; t < 3; t++) {
                int thread = t;
                work.add(pool.submit(() -> {
                    Api api = api(id);
                    int stored = 0;
                    for (int i = 0; i < 15; i++) {
                        Api.Reply r = i % 3 == 0
                                ? ClusterNodes.postKeyed(api, "/v1/events", event("agent-" + thread, i), id + "-" + thread + "-" + i)
                                : api.post("/v1/events", event("agent-" + thread, i));
                        assertThat(r.status()).as(r.body()).isEqualTo(201);
                        assertThat(r.header("X-Tree-Size")).isNotNull();
                        stored++;
                    }
                    StringBuilder batch = new StringBuilder("[");
                    for (int i = 0; i < 10; i++) {
                        batch.append(i == 0 ? "" : ",").append(event("batch-" + id, i));
                    }
                    Api.Reply b = api.post("/v1/batch", batch.append("]").toString());
                    assertThat(b.status()).as(b.body()).isEqualTo(201);
                    return stored + 10;
                }));
            }
        }
        long total = 0;
        for (Future<Integer> f : work) {
            total += f.get();
        }
        pool.shutdown();
        assertThat(total).isEqualTo(9 * 25);

        // Read-after-write across nodes: a write on n1, read on n2 and n3 at its X-Tree-Size.
        Api.Reply w = api("n1").post("/v1/events", event("raw", 0));
        assertThat(w.status()).isEqualTo(201);
        long size = Long.parseLong(w.header("X-Tree-Size"));
        String id = w.json().get("id").asText();
        for (String other : List.of("n2", "n3")) {
            Api.Reply r = api(other).get("/v1/events/" + id + "?min_tree_size=" + size);
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(w.body());
        }

        // One key, sent to two nodes: stored once, answered alike.
        String body = event("idem", 1);
        Api.Reply first = ClusterNodes.postKeyed(api("n2"), "/v1/events", body, "same-key");
        Api.Reply again = ClusterNodes.postKeyed(api("n3"), "/v1/events", body, "same-key");
        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        Api.Reply conflict = ClusterNodes.postKeyed(api("n1"), "/v1/events", event("idem", 2), "same-key");
        assertThat(conflict.status()).as(conflict.body()).isEqualTo(422);

        // OTLP through the topic: two distinct spans (one of them twice) and one refused span, sent to n1;
        // the same export sent to n2 stores nothing again (the marks are replicated with the events).
        String export = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\","
                + "\"value\":{\"stringValue\":\"svc\"}}]},\"scopeSpans\":[{\"spans\":["
                + span("b7ad6b7169203332", "tool", 5) + "," + span("b7ad6b7169203331", "chat", 3) + ","
                + span("b7ad6b7169203331", "chat", 3) + "," + span("0000000000000000", "bad", 4) + "]}]}]}";
        Api.Reply otlp = api("n1").post("/v1/traces", export.getBytes(), "application/json");
        assertThat(otlp.status()).as(otlp.body()).isEqualTo(200);
        assertThat(otlp.json().at("/partialSuccess/rejectedSpans").asText()).isEqualTo("1");
        assertThat(otlp.json().at("/partialSuccess/errorMessage").asText()).contains("span 'bad'");
        long otlpSize = Long.parseLong(otlp.header("X-Tree-Size"));
        Api.Reply resent = api("n2").post("/v1/traces", export.getBytes(), "application/json");
        assertThat(resent.status()).as(resent.body()).isEqualTo(200);
        assertThat(resent.json().at("/partialSuccess/rejectedSpans").asText()).isEqualTo("1");
        assertThat(Long.parseLong(resent.header("X-Tree-Size"))).isEqualTo(otlpSize);
        Api.Reply spans = api("n3").get("/v1/events?agent_id=svc&order=asc&min_tree_size=" + otlpSize);
        assertThat(spans.status()).as(spans.body()).isEqualTo(200);
        assertThat(spans.json()).hasSize(2);
        assertThat(spans.json().get(0).at("/metadata/otel/span_id").asText()).isEqualTo("b7ad6b7169203331");
        // One new export sent to two nodes at once: the topic orders them, each span is stored once.
        String twice = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\","
                + "\"value\":{\"stringValue\":\"svc\"}}]},\"scopeSpans\":[{\"spans\":["
                + span("b7ad6b7169203333", "chat", 6) + "," + span("b7ad6b7169203331", "chat", 3) + "]}]}]}";
        ExecutorService both = Executors.newFixedThreadPool(2);
        Future<Api.Reply> onN2 = both.submit(() -> api("n2").post("/v1/traces", twice.getBytes(), "application/json"));
        Future<Api.Reply> onN3 = both.submit(() -> api("n3").post("/v1/traces", twice.getBytes(), "application/json"));
        long sizeAfter = 0;
        for (Future<Api.Reply> f : List.of(onN2, onN3)) {
            Api.Reply r = f.get();
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(r.json().has("partialSuccess")).as(r.body()).isFalse();
            sizeAfter = Math.max(sizeAfter, Long.parseLong(r.header("X-Tree-Size")));
        }
        both.shutdown();
        assertThat(sizeAfter).isEqualTo(otlpSize + 1);

        long expected = total + 2 + 3;
        assertIdentical(List.of("n1", "n2", "n3"), expected);
        for (String n : List.of("n1", "n2", "n3")) {
            JsonNode c = api(n).get("/v1/cluster").json();
            assertThat(c.get("node_id").asText()).isEqualTo(n);
            assertThat(c.get("applied_size").asLong()).isEqualTo(expected);
            assertThat(c.get("lag").asLong()).isZero();
        }
        Cli.Run status = Cli.run("cluster", "status",
                "--node", api("n1").base(), "--node", api("n2").base(), "--node", api("n3").base());
        assertThat(status.exit()).as(status.toString()).isZero();
        assertThat(status.out()).contains("n1").contains("n2").contains("n3").contains(" " + expected + " ")
                .contains("topic end offset");
    }

    @Test
    @Order(2)
    void aTimestampRequestedOnOneNodeIsStoredAndVerifiesOnEveryNode() throws Exception {
        long size = acknowledgedSize();
        assertIdentical(List.of("n1", "n2", "n3"), size);
        Api.Reply r = api("n1").post("/v1/timestamp", "{}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        JsonNode record = r.json();
        assertThat(record.get("tree_size").asLong()).isEqualTo(size);
        assertThat(record.get("merkle_root").asText())
                .isEqualTo(api("n1").get("/v1/merkle/root?tree_size=" + size).json().get("root").asText());
        // answered after n1's own apply: n1 lists it at once
        assertThat(api("n1").get("/v1/timestamps").json()).hasSize(1);
        for (String id : List.of("n1", "n2", "n3")) {
            JsonNode list = awaitTimestamps(api(id), 1);
            assertThat(list.get(0)).as("the record on " + id).isEqualTo(record);
            JsonNode v = api(id).get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).as(id + ": " + v).isTrue();
            assertThat(v.get("timestamp_id").asText()).isEqualTo(record.get("id").asText());
        }
    }

    /**
     * The size of the log every write acknowledged so far is in: the largest tree any running node
     * has applied (a node answers a write once it applied it itself; the others apply it later, so
     * one node's size alone can miss a write another node just acknowledged).
     */
    private static long acknowledgedSize() throws Exception {
        long size = 0;
        for (String id : nodes.keySet()) {
            size = Math.max(size, api(id).get("/v1/merkle/root").json().get("tree_size").asLong());
        }
        return size;
    }

    /** Polls (at most 20 s) until the node lists {@code n} timestamp records; they follow the events' apply. */
    private static JsonNode awaitTimestamps(Api api, int n) throws Exception {
        AtomicReference<JsonNode> list = new AtomicReference<>();
        Await.untilTrue("the node lists " + n + " timestamp records", Duration.ofSeconds(20), () -> {
            list.set(api.get("/v1/timestamps").json());
            return list.get().size() >= n;
        });
        assertThat(list.get()).hasSize(n);
        return list.get();
    }

    @Test
    @Order(4)
    void aStoppedNodeCatchesUpByteIdentical() throws Exception {
        nodes.remove("n3").close();
        for (int i = 0; i < 20; i++) {
            assertThat(api(i % 2 == 0 ? "n1" : "n2").post("/v1/events", event("while-n3-down", i)).status()).isEqualTo(201);
        }
        long size = acknowledgedSize();
        start("n3");
        assertIdentical(List.of("n1", "n2", "n3"), size);
    }

    @Test
    @Order(5)
    void aFreshNodeJoiningLateConverges() throws Exception {
        long size = acknowledgedSize();
        start("n4");
        try {
            assertIdentical(List.of("n1", "n4"), size);
            assertThat(awaitTimestamps(api("n4"), 1)).isEqualTo(api("n1").get("/v1/timestamps").json());
        } finally {
            nodes.remove("n4").close();
        }
    }

    @Test
    @Order(6)
    void aNodeKilledDuringIngestRestartsAndCatchesUpByteIdentical() throws Exception {
        Path dir = dirs.resolve("k1");
        Path config = dirs.resolve("k1.properties");
        Files.writeString(config, "cluster.mode=kafka\ncluster.bootstrap-servers=" + kafka.bootstrapServers()
                + "\ncluster.node-id=k1\ncluster.topic=" + TOPIC + "\ncluster.write-timeout=" + WRITE_TIMEOUT + "\n");
        ServerProcess k1 = ServerProcess.start(dir, "--config", config.toString());
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Map<String, AtomicInteger> acknowledgedBy = Map.of(k1.api().base(), new AtomicInteger(),
                api("n1").base(), new AtomicInteger());
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> writers = new ArrayList<>();
        for (Api target : List.of(k1.api(), api("n1"))) {
            writers.add(pool.submit(() -> {
                for (int i = 0; !stop.get(); i++) {
                    try {
                        Api.Reply r = target.post("/v1/events", event("killed-" + target.base().hashCode(), i));
                        if (r.status() == 201) {
                            acknowledged.add(r.json().get("id").asText());
                            acknowledgedBy.get(target.base()).incrementAndGet();
                        }
                    } catch (IOException e) {
                        if (!target.base().equals(api("n1").base())) {
                            return null;   // the killed node
                        }
                        throw e;
                    }
                }
                return null;
            }));
        }
        // Killed in the middle of ingest, on both nodes; n1 goes on writing while k1 is down.
        AtomicInteger onK1 = acknowledgedBy.get(k1.api().base());
        AtomicInteger onN1 = acknowledgedBy.get(api("n1").base());
        Await.until("both nodes acknowledged writes", Duration.ofSeconds(60), () -> onK1.get() >= 30 && onN1.get() >= 30);
        k1.kill();
        int beforeKill = onN1.get();
        Await.until("n1 acknowledged writes while k1 was down", Duration.ofSeconds(60), () -> onN1.get() >= beforeKill + 20);
        stop.set(true);
        for (Future<?> f : writers) {
            f.get();
        }
        pool.shutdown();
        k1 = ServerProcess.start(dir, "--config", config.toString());
        try {
            long size = Math.max(acknowledgedSize(), k1.api().get("/v1/merkle/root").json().get("tree_size").asLong());
            Map<String, Api> apis = new LinkedHashMap<>();
            apis.put("n1", api("n1"));
            apis.put("n2", api("n2"));
            apis.put("k1 (after kill -9)", k1.api());
            Map<String, List<JsonNode>> logs = assertIdentical(apis, size);
            assertThat(ids(logs.get("k1 (after kill -9)"))).as("acknowledged events on k1").containsAll(acknowledged);
        } finally {
            k1.stop();
        }
    }

    @Test
    @Order(7)
    void aRecordThatCannotBeAppliedStopsTheApplyLoopLoudlyAndIsNeverSkipped() throws Exception {
        String topic = "poisoned";
        InProcessServer node = ClusterNodes.start(dirs.resolve("poisoned"), kafka.bootstrapServers(), "p1", topic, WRITE_TIMEOUT);
        try {
            Api api = node.api();
            assertThat(api.post("/v1/events", event("p", 0)).status()).isEqualTo(201);
            ClusterNodes.produceRaw(kafka.bootstrapServers(), topic, "{\"not\": \"a write\"}".getBytes());
            Api.Reply after = api.post("/v1/events", event("p", 1));   // behind the bad record: never applied
            assertThat(after.status()).as(after.body()).isEqualTo(503);
            JsonNode c = api.get("/v1/cluster").json();
            assertThat(c.get("applying").asBoolean()).isFalse();
            assertThat(c.get("apply_error").asText()).contains("offset 0").contains("cannot be applied");
            assertThat(c.get("applied_size").asLong()).isEqualTo(1);
            JsonNode health = api.get("/health").json();
            assertThat(health.get("status").asText()).isEqualTo("degraded");
            assertThat(api.get("/v1/events?limit=5").status()).isEqualTo(200);   // reads go on
        } finally {
            node.close();
        }
    }

    @Test
    @Order(8)
    void theLeaderBrokerDyingDuringIngestLosesNoAcknowledgedEvent() throws Exception {
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        long[] firstAfterKill = {0};
        long[] killedAt = {0};
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> writers = new ArrayList<>();
        for (String id : List.of("n1", "n2")) {
            writers.add(pool.submit(() -> {
                int i = 0;
                while (!stop.get()) {
                    String key = "failover-" + id + "-" + i;
                    Api.Reply r = ClusterNodes.postKeyed(api(id), "/v1/events", event("failover-" + id, i), key);
                    if (r.status() == 201) {
                        acknowledged.add(r.json().get("id").asText());
                        synchronized (firstAfterKill) {
                            if (killedAt[0] != 0 && firstAfterKill[0] == 0) {
                                firstAfterKill[0] = System.nanoTime();
                            }
                        }
                        i++;
                    } else {
                        assertThat(r.status()).as(r.body()).isEqualTo(503);   // retried with the same key
                    }
                }
                return null;
            }));
        }
        Await.until("writes acknowledged before the leader dies", Duration.ofSeconds(60), () -> acknowledged.size() >= 40);
        int leader = kafka.leaderOf(TOPIC);
        synchronized (firstAfterKill) {
            killedAt[0] = System.nanoTime();
        }
        kafka.stopBroker(leader);
        // Writers go on for a second past the first write acknowledged after the leader died.
        try {
            Await.until("a second of writes after the first one acknowledged past the leader's death",
                    Duration.ofSeconds(40), () -> {
                        synchronized (firstAfterKill) {
                            return firstAfterKill[0] != 0 && System.nanoTime() - firstAfterKill[0] > 1_000_000_000L;
                        }
                    });
        } finally {
            stop.set(true);
        }
        for (Future<?> f : writers) {
            f.get();
        }
        pool.shutdown();
        assertThat(firstAfterKill[0]).as("a write succeeded after the leader died").isNotZero();
        long resumedMillis = (firstAfterKill[0] - killedAt[0]) / 1_000_000;
        System.out.println("writes resumed " + resumedMillis + " ms after the leader broker stopped");
        assertThat(resumedMillis).isLessThan(30_000);

        long size = acknowledgedSize();
        Map<String, List<JsonNode>> logs = assertIdentical(List.of("n1", "n2", "n3"), size);
        for (Map.Entry<String, List<JsonNode>> log : logs.entrySet()) {
            assertThat(ids(log.getValue())).as("acknowledged events on " + log.getKey()).containsAll(acknowledged);
        }
    }

    @Test
    @Order(9)
    void withEveryBrokerDownWritesAnswer503AndReadsGoOn() throws Exception {
        for (int id : Set.copyOf(kafka.brokerIds())) {
            try {
                kafka.stopBroker(id);
            } catch (RuntimeException e) {
                // already stopped by the failover test
            }
        }
        long t0 = System.nanoTime();
        Api.Reply w = api("n1").post("/v1/events", event("no-kafka", 0));
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(w.status()).as(w.body()).isEqualTo(503);
        assertThat(w.json().get("error").asText()).contains("outcome of this write is unknown");
        assertThat(w.header("Retry-After")).isNotNull();
        assertThat(millis).isLessThan(5_000 + 3_000);
        Api.Reply r = api("n2").get("/v1/stats");
        assertThat(r.status()).isEqualTo(200);
        assertThat(api("n3").get("/v1/events?limit=5").status()).isEqualTo(200);
    }
}
