package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cluster mode against a real Kafka cluster (1 controller + 3 brokers in this JVM, started once):
 * three trailproof nodes ingest concurrently and hold byte-identical events at the same log_index;
 * a stopped node catches up; a node killed with kill -9 (a separate JVM) during ingest restarts and
 * catches up; a fresh node converges (timestamp records too); a timestamp requested on one node is
 * stored and verifies on every node; a record that cannot be applied stops the apply loop; the partition leader dies during ingest and no
 * acknowledged event is lost; with every broker down writes answer 503 and reads go on. The tests
 * run in order and share the cluster (each builds on the state the previous one left).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterIT {

    private static final String TOPIC = "trailproof-it";
    private static final String WRITE_TIMEOUT = "PT5S";
    private static final io.trailproof.http.OpenApiContract CONTRACT = loadContract();

    @TempDir
    static Path dirs;

    private static KafkaTestCluster kafka;
    private static io.trailproof.testing.TestTsa tsa;
    private static Path tsaRoot;
    private static final Map<String, InProcessServer> nodes = new HashMap<>();

    @BeforeAll
    static void startCluster() throws Exception {
        long t0 = System.nanoTime();
        kafka = KafkaTestCluster.start();
        tsa = io.trailproof.testing.TestTsa.start();
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

    private static io.trailproof.http.OpenApiContract loadContract() {
        try {
            return io.trailproof.http.OpenApiContract.load();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void start(String id) throws Exception {
        nodes.put(id, InProcessServer.start(dirs.resolve(id),
                "cluster.mode", "kafka",
                "cluster.bootstrap-servers", kafka.bootstrapServers(),
                "cluster.node-id", id,
                "cluster.topic", TOPIC,
                "cluster.write-timeout", WRITE_TIMEOUT,
                "cluster.read-wait", "PT20S",
                "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "2000"));
    }

    private static Api api(String id) {
        return nodes.get(id).api();
    }

    private static String event(String agent, int i) {
        return "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\",\"metadata\":{\"i\":"
                + i + ",\"x\":4.50,\"big\":1E30}}";
    }

    private static Api.Reply postKeyed(Api api, String path, String body, String key) throws Exception {
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + path))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The size every node must reach, then every event and the root compared byte for byte across them. */
    private static void assertIdentical(List<String> ids, long size) throws Exception {
        Map<String, Api> apis = new java.util.LinkedHashMap<>();
        for (String id : ids) {
            apis.put(id, api(id));
        }
        assertIdentical(apis, size);
    }

    private static void assertIdentical(Map<String, Api> apis, long size) throws Exception {
        String firstRoot = null;
        List<String> firstEvents = null;
        for (Map.Entry<String, Api> node : apis.entrySet()) {
            String id = node.getKey();
            Api api = node.getValue();
            Api.Reply root = api.get("/v1/merkle/root?tree_size=" + size + "&min_tree_size=" + size);
            assertThat(root.status()).as(id + " reaches size " + size + ": " + root.body()).isEqualTo(200);
            List<String> events = new ArrayList<>();
            for (int offset = 0; offset < size; offset += 1000) {
                Api.Reply page = api.get("/v1/events?order=asc&limit=1000&offset=" + offset);
                assertThat(page.status()).isEqualTo(200);
                events.add(page.body());
            }
            Api.Reply current = api.get("/v1/merkle/root");
            assertThat(current.json().get("tree_size").asLong()).as(id + " size").isEqualTo(size);
            if (firstRoot == null) {
                firstRoot = root.body();
                firstEvents = events;
            } else {
                assertThat(root.body()).as("root of " + id).isEqualTo(firstRoot);
                assertThat(events).as("events of " + id + ", byte for byte").isEqualTo(firstEvents);
            }
        }
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
                                ? postKeyed(api, "/v1/events", event("agent-" + thread, i), id + "-" + thread + "-" + i)
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
        Api.Reply first = postKeyed(api("n2"), "/v1/events", body, "same-key");
        Api.Reply again = postKeyed(api("n3"), "/v1/events", body, "same-key");
        assertThat(first.status()).isEqualTo(201);
        assertThat(again.status()).isEqualTo(201);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        Api.Reply conflict = postKeyed(api("n1"), "/v1/events", event("idem", 2), "same-key");
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
        io.trailproof.testing.Cli.Run status = io.trailproof.testing.Cli.run(Map.of(), "cluster", "status",
                "--node", api("n1").base(), "--node", api("n2").base(), "--node", api("n3").base());
        assertThat(status.exit()).as(status.toString()).isZero();
        assertThat(status.out()).contains("n1").contains("n2").contains("n3").contains(" " + expected + " ")
                .contains("topic end offset");
    }

    @Test
    @Order(2)
    void aTimestampRequestedOnOneNodeIsStoredAndVerifiesOnEveryNode() throws Exception {
        long size = api("n1").get("/v1/merkle/root").json().get("tree_size").asLong();
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

    /** Polls (at most 20 s) until the node lists {@code n} timestamp records; they follow the events' apply. */
    private static JsonNode awaitTimestamps(Api api, int n) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            JsonNode list = api.get("/v1/timestamps").json();
            if (list.size() >= n || System.nanoTime() > deadline) {
                assertThat(list).hasSize(n);
                return list;
            }
            Thread.sleep(50);
        }
    }

    /**
     * Scheduled timestamps on their own topic and nodes: one node at a time stamps (Kafka's group
     * picks it), its records reach every node, and when a node leaves the schedule goes on.
     */
    @Test
    @Order(3)
    void scheduledTimestampsAreRunByTheGroupsChosenNodeAndReachEveryNode() throws Exception {
        Map<String, InProcessServer> sched = new java.util.LinkedHashMap<>();
        try {
            for (String id : List.of("s1", "s2")) {
                sched.put(id, InProcessServer.start(dirs.resolve(id),
                        "cluster.mode", "kafka",
                        "cluster.bootstrap-servers", kafka.bootstrapServers(),
                        "cluster.node-id", id,
                        "cluster.topic", TOPIC + "-sched",
                        "cluster.write-timeout", WRITE_TIMEOUT,
                        "cluster.kafka.session.timeout.ms", "6000",
                        "cluster.kafka.heartbeat.interval.ms", "1000",
                        "timestamp.interval", "PT0.5S",
                        "timestamp.default-tsa-url", tsa.url(),
                        "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "2000"));
            }
            Api s1 = sched.get("s1").api();
            Api s2 = sched.get("s2").api();
            for (int i = 0; i < 3; i++) {
                assertThat(s1.post("/v1/events", event("sched", i)).status()).isEqualTo(201);
            }
            JsonNode first = awaitTimestampOf(s1, 3);
            assertThat(awaitTimestampOf(s2, 3)).isEqualTo(first);
            sched.remove("s1").close();   // whichever led: s2 alone is left, and stamps the next growth
            assertThat(s2.post("/v1/events", event("sched", 3)).status()).isEqualTo(201);
            JsonNode next = awaitTimestampOf(s2, 4);
            assertThat(next.get("id").asText()).isNotEqualTo(first.get("id").asText());
            JsonNode v = s2.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
        } finally {
            for (InProcessServer s : sched.values()) {
                s.close();
            }
        }
    }

    /** Polls (at most 30 s) until the node's newest timestamp record stamps tree size {@code size}. */
    private static JsonNode awaitTimestampOf(Api api, long size) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            JsonNode list = api.get("/v1/timestamps?limit=1").json();
            if (!list.isEmpty() && list.get(0).get("tree_size").asLong() >= size) {
                return list.get(0);
            }
            assertThat(System.nanoTime()).as("a scheduled timestamp of tree size " + size + ": " + list).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    @Test
    @Order(4)
    void aStoppedNodeCatchesUpByteIdentical() throws Exception {
        nodes.remove("n3").close();
        for (int i = 0; i < 20; i++) {
            assertThat(api(i % 2 == 0 ? "n1" : "n2").post("/v1/events", event("while-n3-down", i)).status()).isEqualTo(201);
        }
        long size = api("n1").get("/v1/merkle/root").json().get("tree_size").asLong();
        start("n3");
        assertIdentical(List.of("n1", "n2", "n3"), size);
    }

    @Test
    @Order(5)
    void aFreshNodeJoiningLateConverges() throws Exception {
        long size = api("n1").get("/v1/merkle/root").json().get("tree_size").asLong();
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
        java.nio.file.Files.writeString(config, "cluster.mode=kafka\ncluster.bootstrap-servers=" + kafka.bootstrapServers()
                + "\ncluster.node-id=k1\ncluster.topic=" + TOPIC + "\ncluster.write-timeout=" + WRITE_TIMEOUT + "\n");
        io.trailproof.testing.ServerProcess k1 = io.trailproof.testing.ServerProcess.start(dir, "--config", config.toString());
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
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
                        }
                    } catch (java.io.IOException e) {
                        if (!target.base().equals(api("n1").base())) {
                            return null;   // the killed node
                        }
                        throw e;
                    }
                }
                return null;
            }));
        }
        Thread.sleep(1500);
        k1.kill();
        Thread.sleep(500);
        stop.set(true);
        for (Future<?> f : writers) {
            f.get();
        }
        pool.shutdown();
        k1 = io.trailproof.testing.ServerProcess.start(dir, "--config", config.toString());
        try {
            long size = api("n1").get("/v1/merkle/root").json().get("tree_size").asLong();
            Map<String, Api> apis = new java.util.LinkedHashMap<>();
            apis.put("n1", api("n1"));
            apis.put("n2", api("n2"));
            apis.put("k1 (after kill -9)", k1.api());
            assertIdentical(apis, size);
            for (String id : acknowledged) {
                assertThat(k1.api().get("/v1/events/" + id).status()).as(id).isEqualTo(200);
            }
        } finally {
            k1.stop();
        }
    }

    @Test
    @Order(7)
    void aRecordThatCannotBeAppliedStopsTheApplyLoopLoudlyAndIsNeverSkipped() throws Exception {
        String topic = "poisoned";
        InProcessServer node = InProcessServer.start(dirs.resolve("poisoned"), "cluster.mode", "kafka",
                "cluster.bootstrap-servers", kafka.bootstrapServers(), "cluster.node-id", "p1", "cluster.topic", topic,
                "cluster.write-timeout", WRITE_TIMEOUT);
        try {
            Api api = node.api();
            assertThat(api.post("/v1/events", event("p", 0)).status()).isEqualTo(201);
            java.util.Properties props = new java.util.Properties();
            props.put("bootstrap.servers", kafka.bootstrapServers());
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(props,
                    new org.apache.kafka.common.serialization.ByteArraySerializer(),
                    new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null,
                        "{\"not\": \"a write\"}".getBytes())).get();
            }
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

    /**
     * A timestamp record whose root is not the node's root at its size (forged, or from a node whose
     * log differs) stops the apply loop like any record that cannot be applied: never stored, never
     * skipped, reads go on.
     */
    @Test
    @Order(7)
    void aForgedTimestampRecordStopsTheApplyLoopLoudlyAndIsNeverStored() throws Exception {
        String topic = "forged";
        InProcessServer node = InProcessServer.start(dirs.resolve("forged"), "cluster.mode", "kafka",
                "cluster.bootstrap-servers", kafka.bootstrapServers(), "cluster.node-id", "f1", "cluster.topic", topic,
                "cluster.write-timeout", WRITE_TIMEOUT,
                "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "2000");
        try {
            Api api = node.api();
            assertThat(api.post("/v1/events", event("f", 0)).status()).isEqualTo(201);
            assertThat(api.post("/v1/events", event("f", 1)).status()).isEqualTo(201);
            Api.Reply genuine = api.post("/v1/timestamp", "{}");
            assertThat(genuine.status()).as(genuine.body()).isEqualTo(201);
            // The genuine record with another root at the same size, produced as a node would produce it.
            String ownRoot = genuine.json().get("merkle_root").asText();
            String otherRoot = (ownRoot.charAt(0) == 'a' ? "b" : "a") + ownRoot.substring(1);
            com.fasterxml.jackson.databind.node.ObjectNode forged = genuine.json().deepCopy();
            forged.put("id", "forged-timestamp");
            forged.put("merkle_root", otherRoot);
            byte[] value = new TimestampWrite("intruder", "forged-request",
                    io.trailproof.core.timestamp.TimestampRecord.fromJson(forged)).encode();
            java.util.Properties props = new java.util.Properties();
            props.put("bootstrap.servers", kafka.bootstrapServers());
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(props,
                    new org.apache.kafka.common.serialization.ByteArraySerializer(),
                    new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null, value)).get();
            }
            Api.Reply after = api.post("/v1/events", event("f", 2));   // behind the forged record: never applied
            assertThat(after.status()).as(after.body()).isEqualTo(503);
            JsonNode c = api.get("/v1/cluster").json();
            assertThat(c.get("applying").asBoolean()).isFalse();
            assertThat(c.get("apply_error").asText()).contains("offset 3").contains("intruder")
                    .contains("stamps root " + otherRoot).contains("at tree size 2").contains(ownRoot)
                    .contains("damage");
            assertThat(c.get("applied_size").asLong()).isEqualTo(2);
            assertThat(c.get("applied_offset").asLong()).isEqualTo(2);
            assertThat(CONTRACT.validate(CONTRACT.document().at("/components/schemas/ClusterStatus"), c)).isEmpty();
            JsonNode health = api.get("/health").json();
            assertThat(health.get("status").asText()).isEqualTo("degraded");
            assertThat(health.get("problems").toString()).contains("apply loop stopped");
            JsonNode stamps = api.get("/v1/timestamps").json();
            assertThat(stamps).hasSize(1);
            assertThat(stamps.get(0)).isEqualTo(genuine.json());
            assertThat(api.get("/v1/timestamps/verify").json().get("valid").asBoolean()).isTrue();
            assertThat(api.get("/v1/events?limit=5").json()).hasSize(2);   // reads go on
        } finally {
            node.close();
        }
        // Restarted, the node stops at the same record again: it is never skipped.
        InProcessServer again = InProcessServer.start(dirs.resolve("forged"), "cluster.mode", "kafka",
                "cluster.bootstrap-servers", kafka.bootstrapServers(), "cluster.node-id", "f1", "cluster.topic", topic,
                "cluster.write-timeout", WRITE_TIMEOUT);
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            JsonNode c = again.api().get("/v1/cluster").json();
            while (c.get("applying").asBoolean() && System.nanoTime() < deadline) {
                Thread.sleep(100);
                c = again.api().get("/v1/cluster").json();
            }
            assertThat(c.get("applying").asBoolean()).isFalse();
            assertThat(c.get("apply_error").asText()).contains("offset 3");
            assertThat(c.get("applied_offset").asLong()).isEqualTo(2);
            assertThat(again.api().get("/v1/timestamps").json()).hasSize(1);
        } finally {
            again.close();
        }
    }

    /**
     * A cosignature record whose signature, by the key of a configured witness, does not verify over
     * the checkpoint it names (forged) stops the apply loop; it is never served.
     */
    @Test
    @Order(7)
    void aForgedCosignatureRecordStopsTheApplyLoopLoudlyAndIsNeverServed() throws Exception {
        String topic = "forged-cosignature";
        InProcessServer node = InProcessServer.start(dirs.resolve("forged-cosignature"), "cluster.mode", "kafka",
                "cluster.bootstrap-servers", kafka.bootstrapServers(), "cluster.node-id", "c1", "cluster.topic", topic,
                "cluster.write-timeout", WRITE_TIMEOUT, "checkpoint.interval", "PT0.2S",
                // a witness that is never reached: the node asks it in vain, which never stops the log
                "checkpoint.witnesses", io.trailproof.checkpoint.TestWitness.vkey() + "@http://127.0.0.1:9/add-checkpoint");
        try {
            Api api = node.api();
            assertThat(api.post("/v1/events", event("c", 0)).status()).isEqualTo(201);
            String origin = api.get("/v1/checkpoint/key").json().get("origin").asText();
            byte[] root = java.util.HexFormat.of().parseHex(
                    api.get("/v1/merkle/root?tree_size=1").json().get("root").asText());
            io.trailproof.core.note.TlogCheckpoint cp = io.trailproof.core.note.TlogCheckpoint.of(origin, 1, root);
            // The witness's name and key id, another key's signature.
            io.trailproof.core.note.NoteVerifier witness = io.trailproof.core.note.VerifierKey.parse(
                    io.trailproof.checkpoint.TestWitness.vkey());
            byte[] otherSeed = new byte[32];
            otherSeed[0] = 7;
            io.trailproof.core.note.NoteSignature forged = new io.trailproof.core.note.NoteSignature(witness.name(),
                    witness.keyId(), io.trailproof.core.note.TlogCosignature.sign(witness.name(), otherSeed,
                            1_764_000_000L, cp.text()).signature());
            java.util.Properties props = new java.util.Properties();
            props.put("bootstrap.servers", kafka.bootstrapServers());
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(props,
                    new org.apache.kafka.common.serialization.ByteArraySerializer(),
                    new org.apache.kafka.common.serialization.ByteArraySerializer())) {
                producer.send(new org.apache.kafka.clients.producer.ProducerRecord<>(topic, 0, null,
                        new CosignatureWrite("intruder", "forged-request", cp, forged).encode())).get();
            }
            Api.Reply after = api.post("/v1/events", event("c", 1));   // behind the forged record: never applied
            assertThat(after.status()).as(after.body()).isEqualTo(503);
            JsonNode c = api.get("/v1/cluster").json();
            assertThat(c.get("applying").asBoolean()).isFalse();
            assertThat(c.get("apply_error").asText()).contains("offset 1").contains("does not verify")
                    .contains("damage or forgery");
            assertThat(api.get("/health").json().get("status").asText()).isEqualTo("degraded");
            assertThat(api.get("/checkpoint").body()).doesNotContain(witness.name());
            assertThat(api.get("/v1/events?limit=5").json()).hasSize(1);   // reads go on
        } finally {
            node.close();
        }
    }

    /**
     * Witnesses in cluster mode: only the node that runs the scheduled work asks the witness (its
     * per-node request metric grows, the other's does not), every node serves the cosigned checkpoint
     * (the cosignature comes through the topic), and when the asking node leaves the other one asks.
     */
    @Test
    @Order(7)
    void witnessesAreAskedByTheSchedulersNodeOnlyAndEveryNodeServesTheCosignedCheckpoint() throws Exception {
        io.trailproof.core.note.NoteSigner log = io.trailproof.core.note.NoteSigner.of("cluster.test/witnessed",
                new byte[32]);
        Path key = dirs.resolve("witnessed.key");
        java.nio.file.Files.writeString(key, log.privateKeyText() + "\n");
        Map<String, InProcessServer> wit = new java.util.LinkedHashMap<>();
        try (io.trailproof.checkpoint.TestWitness witness = new io.trailproof.checkpoint.TestWitness(log.vkey(),
                dirs.resolve("witness-state"), 0)) {
            for (String id : List.of("w1", "w2")) {
                wit.put(id, InProcessServer.start(dirs.resolve(id),
                        "cluster.mode", "kafka",
                        "cluster.bootstrap-servers", kafka.bootstrapServers(),
                        "cluster.node-id", id,
                        "cluster.topic", TOPIC + "-witness",
                        "cluster.write-timeout", WRITE_TIMEOUT,
                        "cluster.kafka.session.timeout.ms", "6000",
                        "cluster.kafka.heartbeat.interval.ms", "1000",
                        "checkpoint.signing-key", key.toString(),
                        "checkpoint.interval", "PT0.2S",
                        "checkpoint.witnesses", io.trailproof.checkpoint.TestWitness.vkey() + "@" + witness.url()));
            }
            for (int i = 0; i < 5; i++) {
                assertThat(wit.get("w1").api().post("/v1/events", event("witnessed", i)).status()).isEqualTo(201);
            }
            String at5 = awaitCosigned(wit.get("w1").api(), log, 5);
            assertThat(awaitCosigned(wit.get("w2").api(), log, 5)).as("the same signed note on both nodes").isEqualTo(at5);

            String leader = awaitScheduler(wit, null);
            String follower = leader.equals("w1") ? "w2" : "w1";
            Api lead = wit.get(leader).api();
            Api follow = wit.get(follower).api();
            double leaderAsked = witnessRequests(lead, "success");
            double followerAsked = witnessRequests(follow, "success") + witnessRequests(follow, "failure");
            assertThat(leaderAsked).isPositive();
            io.trailproof.testing.Cli.Run status = io.trailproof.testing.Cli.run(Map.of(), "cluster", "status",
                    "--node", lead.base(), "--node", follow.base());
            assertThat(status.exit()).as(status.toString()).isZero();
            assertThat(status.out()).containsPattern("(?m)^" + leader + " .* yes ")
                    .containsPattern("(?m)^" + follower + " .* no ");

            for (int i = 5; i < 10; i++) {
                assertThat(follow.post("/v1/events", event("witnessed", i)).status()).isEqualTo(201);
            }
            String at10 = awaitCosigned(follow, log, 10);
            assertThat(awaitCosigned(lead, log, 10)).isEqualTo(at10);
            assertThat(witnessRequests(lead, "success")).as("the scheduler's node asked").isGreaterThan(leaderAsked);
            assertThat(witnessRequests(follow, "success") + witnessRequests(follow, "failure"))
                    .as("the other node never asked").isEqualTo(followerAsked);
            assertThat(follow.get("/health").json().get("status").asText()).isEqualTo("ok");

            // The asking node leaves: the other one is chosen and asks from then on.
            wit.remove(leader).close();
            assertThat(awaitScheduler(wit, follower)).isEqualTo(follower);
            for (int i = 10; i < 13; i++) {
                assertThat(follow.post("/v1/events", event("witnessed", i)).status()).isEqualTo(201);
            }
            awaitCosigned(follow, log, 13);
            assertThat(witnessRequests(follow, "success")).as("the new scheduler's node asked").isPositive();
        } finally {
            for (InProcessServer s : wit.values()) {
                s.close();
            }
        }
    }

    /** Polls (at most 30 s) until {@code /checkpoint} is of {@code size} and cosigned by the test witness. */
    private static String awaitCosigned(Api api, io.trailproof.core.note.NoteSigner log, long size) throws Exception {
        List<io.trailproof.core.note.NoteVerifier> keys = List.of(log.verifier(),
                io.trailproof.core.note.VerifierKey.parse(io.trailproof.checkpoint.TestWitness.vkey()));
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (true) {
            Api.Reply r = api.get("/checkpoint");
            if (r.status() == 200) {
                var opened = io.trailproof.core.note.NoteVerification.open(
                        r.body().getBytes(java.nio.charset.StandardCharsets.UTF_8), keys);
                if (io.trailproof.core.note.TlogCheckpoint.parse(opened.note().text()).size() == size
                        && opened.signedBy(keys.get(1)) && opened.signedBy(keys.get(0))) {
                    return r.body();
                }
            }
            assertThat(System.nanoTime()).as("a cosigned checkpoint of size " + size + " on " + api.base() + ": "
                    + r.body()).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * Polls (at most 60 s) until exactly one of the nodes says it runs the scheduled work (and it is
     * {@code expected} when given); returns its id.
     */
    private static String awaitScheduler(Map<String, ?> ids, String expected) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            List<String> leading = new ArrayList<>();
            Map<String, String> answers = new java.util.LinkedHashMap<>();
            for (String id : ids.keySet()) {
                Object node = ids.get(id);
                Api api = node instanceof InProcessServer s ? s.api() : (Api) node;
                JsonNode c = api.get("/v1/cluster").json();
                answers.put(id, c.toString());
                assertThat(c.get("scheduler").isBoolean()).as(c.toString()).isTrue();
                assertThat(CONTRACT.validate(CONTRACT.document().at("/components/schemas/ClusterStatus"), c))
                        .as("GET /v1/cluster in cluster mode against the OpenAPI document: " + c).isEmpty();
                if (c.get("scheduler").asBoolean()) {
                    leading.add(id);
                }
            }
            if (leading.size() == 1 && (expected == null || leading.get(0).equals(expected))) {
                return leading.get(0);
            }
            assertThat(System.nanoTime()).as("one node running the scheduled work: " + answers).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /** The node's own count of cosignature requests to the test witness with {@code outcome}. */
    private static double witnessRequests(Api api, String outcome) throws Exception {
        String metrics = api.get("/metrics").body();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("trailproof_witness_requests_total\\{outcome=\""
                + outcome + "\",witness=\"" + java.util.regex.Pattern.quote(io.trailproof.checkpoint.TestWitness.NAME)
                + "\"\\} ([0-9.eE+]+)").matcher(metrics);
        assertThat(m.find()).as(metrics).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /**
     * The node running the scheduled work dies (kill -9, a separate process): after the group's
     * session timeout (6 s here) the other node is chosen and stamps the next growth.
     */
    @Test
    @Order(7)
    void whenTheSchedulersNodeIsKilledTheOtherNodeTakesOverScheduledTimestamps() throws Exception {
        String topic = TOPIC + "-die";
        String common = "cluster.mode=kafka\ncluster.bootstrap-servers=" + kafka.bootstrapServers()
                + "\ncluster.topic=" + topic + "\ncluster.write-timeout=" + WRITE_TIMEOUT
                + "\ncluster.kafka.session.timeout.ms=6000\ncluster.kafka.heartbeat.interval.ms=1000"
                + "\ntimestamp.interval=PT0.5S\ntimestamp.default-tsa-url=" + tsa.url()
                + "\ntimestamp.trust-anchors=" + tsaRoot + "\ntimestamp.timeout-ms=2000\n";
        Path config = dirs.resolve("d1.properties");
        java.nio.file.Files.writeString(config, common + "cluster.node-id=d1\n");
        io.trailproof.testing.ServerProcess d1 = io.trailproof.testing.ServerProcess.start(dirs.resolve("d1"),
                "--config", config.toString());
        InProcessServer d2 = null;
        try {
            assertThat(awaitScheduler(Map.of("d1", d1.api()), "d1")).isEqualTo("d1");
            d2 = InProcessServer.start(dirs.resolve("d2"), "cluster.mode", "kafka",
                    "cluster.bootstrap-servers", kafka.bootstrapServers(), "cluster.node-id", "d2", "cluster.topic", topic,
                    "cluster.write-timeout", WRITE_TIMEOUT,
                    "cluster.kafka.session.timeout.ms", "6000", "cluster.kafka.heartbeat.interval.ms", "1000",
                    "timestamp.interval", "PT0.5S", "timestamp.default-tsa-url", tsa.url(),
                    "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "2000");
            Api api = d2.api();
            for (int i = 0; i < 3; i++) {
                assertThat(api.post("/v1/events", event("die", i)).status()).isEqualTo(201);
            }
            awaitTimestampOf(api, 3);   // stamped by d1, stored on d2 through the topic
            Map<String, Object> both = new java.util.LinkedHashMap<>();
            both.put("d1", d1.api());
            both.put("d2", api);
            assertThat(awaitScheduler(both, null)).isEqualTo("d1");

            d1.kill();
            long killed = System.nanoTime();
            assertThat(api.post("/v1/events", event("die", 3)).status()).isEqualTo(201);
            assertThat(api.get("/v1/cluster").json().get("scheduler").asBoolean()).as("not before the session timeout")
                    .isFalse();
            JsonNode next = awaitTimestampOf(api, 4);
            long tookMillis = (System.nanoTime() - killed) / 1_000_000;
            System.out.println("the scheduled work moved to d2 " + tookMillis + " ms after d1 was killed");
            assertThat(next.get("tree_size").asLong()).isEqualTo(4);
            assertThat(api.get("/v1/cluster").json().get("scheduler").asBoolean()).isTrue();
            JsonNode v = api.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
        } finally {
            if (d2 != null) {
                d2.close();
            }
            d1.stop();
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
                    Api.Reply r = postKeyed(api(id), "/v1/events", event("failover-" + id, i), key);
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
        Thread.sleep(1000);
        int leader = kafka.leaderOf(TOPIC);
        synchronized (firstAfterKill) {
            killedAt[0] = System.nanoTime();
        }
        kafka.stopBroker(leader);
        long deadline = System.nanoTime() + 40_000_000_000L;
        while (System.nanoTime() < deadline) {
            synchronized (firstAfterKill) {
                if (firstAfterKill[0] != 0 && System.nanoTime() - firstAfterKill[0] > 1_000_000_000L) {
                    break;
                }
            }
            Thread.sleep(100);
        }
        stop.set(true);
        for (Future<?> f : writers) {
            f.get();
        }
        pool.shutdown();
        assertThat(firstAfterKill[0]).as("a write succeeded after the leader died").isNotZero();
        long resumedMillis = (firstAfterKill[0] - killedAt[0]) / 1_000_000;
        System.out.println("writes resumed " + resumedMillis + " ms after the leader broker stopped");
        assertThat(resumedMillis).isLessThan(30_000);

        long size = api("n1").get("/v1/merkle/root").json().get("tree_size").asLong();
        size = Math.max(size, api("n2").get("/v1/merkle/root").json().get("tree_size").asLong());
        assertIdentical(List.of("n1", "n2", "n3"), size);
        for (String id : acknowledged) {
            for (String n : List.of("n1", "n2", "n3")) {
                assertThat(api(n).get("/v1/events/" + id).status()).as(id + " on " + n).isEqualTo(200);
            }
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
