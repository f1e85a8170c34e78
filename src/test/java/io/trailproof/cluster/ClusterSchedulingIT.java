package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.checkpoint.TestWitness;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogCosignature;
import io.trailproof.core.note.VerifierKey;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import io.trailproof.testing.SharedKafka;
import io.trailproof.testing.TestTsa;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.trailproof.cluster.ClusterNodes.CONTRACT;
import static io.trailproof.cluster.ClusterNodes.event;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scheduled work in cluster mode against a real Kafka cluster (1 controller + 3 brokers in this JVM,
 * the shared one: {@link SharedKafka})
 * and a test TSA: scheduled timestamps and witness requests run on one node at a time (the member of
 * the scheduler's consumer group), reach every node through the topic, and move to another node when
 * that one leaves or is killed; a forged timestamp or cosignature record stops the apply loop. Each
 * test has its own topic and nodes.
 */
@ExtendWith(SharedKafka.class)
@Order(RunOrder.SHARED_KAFKA)
class ClusterSchedulingIT {

    private static final String WRITE_TIMEOUT = "PT5S";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dirs;

    private static KafkaTestCluster kafka;
    private static TestTsa tsa;
    private static Path tsaRoot;

    @BeforeAll
    static void startTsa(KafkaTestCluster shared) throws Exception {
        kafka = shared;
        tsa = TestTsa.start();
        tsaRoot = tsa.writeRootPem(dirs.resolve("tsa-ca.pem"));
    }

    @AfterAll
    static void stopTsa() throws Exception {
        if (tsa != null) {
            tsa.close();
        }
    }



    /**
     * Scheduled work on its own topic and nodes: one node at a time stamps and reports capture gaps
     * (Kafka's group picks it), its timestamp records and {@code GAP} events reach every node through
     * the topic, each hole is reported once whichever node took its events, and when a node leaves
     * the other goes on with both.
     */
    @Test
    void scheduledWorkIsRunByTheGroupsChosenNodeAndReachesEveryNode() throws Exception {
        String topic = KafkaTestCluster.newTopic("sched");
        Map<String, InProcessServer> sched = new LinkedHashMap<>();
        try {
            for (String id : List.of("s1", "s2")) {
                sched.put(id, ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, topic, WRITE_TIMEOUT,
                        "cluster.kafka.session.timeout.ms", "6000",
                        "cluster.kafka.heartbeat.interval.ms", "1000",
                        "timestamp.interval", "PT0.5S",
                        "timestamp.default-tsa-url", tsa.url(),
                        "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "15000",
                        "capture.gap-after", "PT1S"));
            }
            Api s1 = sched.get("s1").api();
            Api s2 = sched.get("s2").api();
            for (int i = 0; i < 3; i++) {
                assertThat(s1.post("/v1/events", event("sched", i)).status()).isEqualTo(201);
            }
            JsonNode first = awaitTimestampOf(s1, 3);
            assertThat(awaitTimestampOf(s2, 3)).isEqualTo(first);
            // A hole whose events came through both nodes: one GAP, the same on both.
            assertThat(ClusterNodes.awaitSchedulerGroup(kafka.bootstrapServers(), topic, 2, 60)).isTrue();
            assertThat(s1.post("/v1/events", captured("g1", 1)).status()).isEqualTo(201);
            assertThat(s2.post("/v1/events", captured("g1", 3)).status()).isEqualTo(201);
            Await.untilTrue("the hole of g1 reaches both nodes as a GAP", Duration.ofSeconds(60),
                    () -> !gaps(s1, "g1").isEmpty() && !gaps(s2, "g1").isEmpty());
            assertThat(gaps(s1, "g1").get(0).get("action_output").get("missing").toString()).isEqualTo("[[2,2]]");
            // A later hole reported means the first was due on both nodes for over a second of ticks: still one GAP.
            assertThat(s2.post("/v1/events", captured("g2", 1)).status()).isEqualTo(201);
            assertThat(s1.post("/v1/events", captured("g2", 4)).status()).isEqualTo(201);
            Await.untilTrue("the hole of g2 reaches both nodes as a GAP", Duration.ofSeconds(60),
                    () -> !gaps(s1, "g2").isEmpty() && !gaps(s2, "g2").isEmpty());
            assertThat(gaps(s1, "g1")).hasSize(1);
            assertThat(gaps(s2, "g1")).isEqualTo(gaps(s1, "g1"));
            assertThat(gaps(s2, "g2")).hasSize(1).isEqualTo(gaps(s1, "g2"));
            // Both GAPs are writes of the topic, made by the node that runs the scheduled work.
            boolean s1Leads = s1.get("/v1/cluster").json().get("scheduler").asBoolean();
            assertThat(s2.get("/v1/cluster").json().get("scheduler").asBoolean()).isNotEqualTo(s1Leads);
            List<String> gapWrites = ClusterNodes.records(kafka.bootstrapServers(), topic, 0).stream()
                    .filter(v -> v.contains("\"action_type\":\"GAP\"")).toList();
            assertThat(gapWrites).hasSize(2);
            for (String write : gapWrites) {
                assertThat(JSON.readTree(write).get("node").asText()).isEqualTo(s1Leads ? "s1" : "s2");
            }
            long size = s1.get("/v1/merkle/root").json().get("tree_size").asLong();
            assertThat(size).isEqualTo(3 + 2 + 1 + 2 + 1);
            ClusterNodes.assertIdentical(Map.of("s1", s1, "s2", s2), size);
            sched.remove("s1").close();   // whichever led: s2 alone is left, and stamps the next growth
            assertThat(s2.post("/v1/events", event("sched", 3)).status()).isEqualTo(201);
            JsonNode next = awaitTimestampOf(s2, size + 1);
            assertThat(next.get("id").asText()).isNotEqualTo(first.get("id").asText());
            // ... and reports the next hole.
            assertThat(s2.post("/v1/events", captured("g3", 1)).status()).isEqualTo(201);
            assertThat(s2.post("/v1/events", captured("g3", 3)).status()).isEqualTo(201);
            Await.untilTrue("the node left alone reports the hole of g3", Duration.ofSeconds(60),
                    () -> gaps(s2, "g3").size() == 1);
            JsonNode v = s2.get("/v1/timestamps/verify").json();
            assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
        } finally {
            for (InProcessServer s : sched.values()) {
                s.close();
            }
        }
    }

    /** Event {@code seq} of the capture stream {@code captureId} of the agent {@code gapped}. */
    private static String captured(String captureId, long seq) {
        return "{\"agent_id\":\"gapped\",\"capture_method\":\"python-sdk\",\"action_type\":\"TOOL_CALL\","
                + "\"capture_id\":\"" + captureId + "\",\"capture_seq\":" + seq + "}";
    }

    /** The node's {@code GAP} events for the holes of {@code captureId}, in chain order. */
    private static List<JsonNode> gaps(Api api, String captureId) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e : api.get("/v1/events?order=asc&action_type=GAP&agent_id=gapped").json()) {
            if (e.get("action_output").get("capture_id").asText().equals(captureId)) {
                out.add(e);
            }
        }
        return out;
    }

    /** Polls (at most 30 s) until the node's newest timestamp record stamps tree size {@code size}. */
    private static JsonNode awaitTimestampOf(Api api, long size) throws Exception {
        AtomicReference<JsonNode> list = new AtomicReference<>();
        Await.untilTrue("a scheduled timestamp of tree size " + size, Duration.ofSeconds(30), () -> {
            list.set(api.get("/v1/timestamps?limit=1").json());
            return !list.get().isEmpty() && list.get().get(0).get("tree_size").asLong() >= size;
        });
        return list.get().get(0);
    }

    /**
     * A timestamp record whose root is not the node's root at its size (forged, or from a node whose
     * log differs) stops the apply loop like any record that cannot be applied: never stored, never
     * skipped, reads go on.
     */
    @Test
    void aForgedTimestampRecordStopsTheApplyLoopLoudlyAndIsNeverStored() throws Exception {
        String topic = KafkaTestCluster.newTopic("forged");
        InProcessServer node = ClusterNodes.start(dirs.resolve("forged"), kafka.bootstrapServers(), "f1", topic, WRITE_TIMEOUT,
                "timestamp.default-tsa-url", tsa.url(),
                "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "15000");
        try {
            Api api = node.api();
            assertThat(api.post("/v1/events", event("f", 0)).status()).isEqualTo(201);
            assertThat(api.post("/v1/events", event("f", 1)).status()).isEqualTo(201);
            Api.Reply genuine = api.post("/v1/timestamp", "{}");
            assertThat(genuine.status()).as(genuine.body()).isEqualTo(201);
            // The genuine record with another root at the same size, produced as a node would produce it.
            String ownRoot = genuine.json().get("merkle_root").asText();
            String otherRoot = (ownRoot.charAt(0) == 'a' ? "b" : "a") + ownRoot.substring(1);
            ObjectNode forged = genuine.json().deepCopy();
            forged.put("id", "forged-timestamp");
            forged.put("merkle_root", otherRoot);
            byte[] value = new TimestampWrite("intruder", "forged-request",
                    TimestampRecord.fromJson(forged)).encode();
            ClusterNodes.produceRaw(kafka.bootstrapServers(), topic, value);
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
        InProcessServer again = ClusterNodes.start(dirs.resolve("forged"), kafka.bootstrapServers(), "f1", topic, WRITE_TIMEOUT);
        try {
            Await.untilTrue("the restarted node stops applying", Duration.ofSeconds(30),
                    () -> !again.api().get("/v1/cluster").json().get("applying").asBoolean());
            JsonNode c = again.api().get("/v1/cluster").json();
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
    void aForgedCosignatureRecordStopsTheApplyLoopLoudlyAndIsNeverServed() throws Exception {
        String topic = KafkaTestCluster.newTopic("forged-cosignature");
        InProcessServer node = ClusterNodes.start(dirs.resolve("forged-cosignature"), kafka.bootstrapServers(), "c1", topic, WRITE_TIMEOUT, "checkpoint.interval", "PT0.2S",
                // a witness that is never reached: the node asks it in vain, which never stops the log
                "checkpoint.witnesses", TestWitness.vkey() + "@http://127.0.0.1:9/add-checkpoint");
        try {
            Api api = node.api();
            assertThat(api.post("/v1/events", event("c", 0)).status()).isEqualTo(201);
            String origin = api.get("/v1/checkpoint/key").json().get("origin").asText();
            byte[] root = HexFormat.of().parseHex(
                    api.get("/v1/merkle/root?tree_size=1").json().get("root").asText());
            TlogCheckpoint cp = TlogCheckpoint.of(origin, 1, root);
            // The witness's name and key id, another key's signature.
            NoteVerifier witness = VerifierKey.parse(
                    TestWitness.vkey());
            byte[] otherSeed = new byte[32];
            otherSeed[0] = 7;
            NoteSignature forged = new NoteSignature(witness.name(),
                    witness.keyId(), TlogCosignature.sign(witness.name(), otherSeed,
                            1_764_000_000L, cp.text()).signature());
            ClusterNodes.produceRaw(kafka.bootstrapServers(), topic, new CosignatureWrite("intruder", "forged-request", cp, forged).encode());
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
    void witnessesAreAskedByTheSchedulersNodeOnlyAndEveryNodeServesTheCosignedCheckpoint() throws Exception {
        NoteSigner log = NoteSigner.of("cluster.test/witnessed",
                new byte[32]);
        Path key = dirs.resolve("witnessed.key");
        Files.writeString(key, log.privateKeyText() + "\n");
        String topic = KafkaTestCluster.newTopic("witness");
        Map<String, InProcessServer> wit = new LinkedHashMap<>();
        try (TestWitness witness = new TestWitness(log.vkey(),
                dirs.resolve("witness-state"), 0)) {
            for (String id : List.of("w1", "w2")) {
                wit.put(id, ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, topic, WRITE_TIMEOUT,
                        "cluster.kafka.session.timeout.ms", "6000",
                        "cluster.kafka.heartbeat.interval.ms", "1000",
                        "checkpoint.signing-key", key.toString(),
                        "checkpoint.interval", "PT0.2S",
                        "checkpoint.witnesses", TestWitness.vkey() + "@" + witness.url()));
            }
            // Both nodes in the group before counting who asks: a late join would move the asking once more.
            assertThat(ClusterNodes.awaitSchedulerGroup(kafka.bootstrapServers(), topic, 2, 60)).isTrue();
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
            Cli.Run status = Cli.run("cluster", "status",
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
    private static String awaitCosigned(Api api, NoteSigner log, long size) throws Exception {
        List<NoteVerifier> keys = List.of(log.verifier(),
                VerifierKey.parse(TestWitness.vkey()));
        AtomicReference<String> cosigned = new AtomicReference<>();
        Await.untilTrue("a cosigned checkpoint of size " + size + " on " + api.base(), Duration.ofSeconds(30), () -> {
            Api.Reply r = api.get("/checkpoint");
            if (r.status() == 200) {
                var opened = NoteVerification.open(
                        r.body().getBytes(StandardCharsets.UTF_8), keys);
                if (TlogCheckpoint.parse(opened.note().text()).size() == size
                        && opened.signedBy(keys.get(1)) && opened.signedBy(keys.get(0))) {
                    cosigned.set(r.body());
                    return true;
                }
            }
            return false;
        });
        return cosigned.get();
    }

    /**
     * Polls (at most 60 s) until exactly one of the nodes says it runs the scheduled work (and it is
     * {@code expected} when given); returns its id.
     */
    private static String awaitScheduler(Map<String, ?> ids, String expected) throws Exception {
        AtomicReference<String> scheduler = new AtomicReference<>();
        Await.untilTrue("one node running the scheduled work" + (expected == null ? "" : ": " + expected),
                Duration.ofSeconds(60), () -> {
                List<String> leading = new ArrayList<>();
                for (String id : ids.keySet()) {
                    Object node = ids.get(id);
                    Api api = node instanceof InProcessServer s ? s.api() : (Api) node;
                    JsonNode c = api.get("/v1/cluster").json();
                    assertThat(c.get("scheduler").isBoolean()).as(c.toString()).isTrue();
                    assertThat(CONTRACT.validate(CONTRACT.document().at("/components/schemas/ClusterStatus"), c))
                            .as("GET /v1/cluster in cluster mode against the OpenAPI document: " + c).isEmpty();
                    if (c.get("scheduler").asBoolean()) {
                        leading.add(id);
                    }
                }
                if (leading.size() == 1 && (expected == null || leading.get(0).equals(expected))) {
                    scheduler.set(leading.get(0));
                    return true;
                }
                return false;
            });
        return scheduler.get();
    }

    /** The node's own count of cosignature requests to the test witness with {@code outcome}. */
    private static double witnessRequests(Api api, String outcome) throws Exception {
        String metrics = api.get("/metrics").body();
        Matcher m = Pattern.compile("trailproof_witness_requests_total\\{outcome=\""
                + outcome + "\",witness=\"" + Pattern.quote(TestWitness.NAME)
                + "\"\\} ([0-9.eE+]+)").matcher(metrics);
        assertThat(m.find()).as(metrics).isTrue();
        return Double.parseDouble(m.group(1));
    }

    /**
     * The node running the scheduled work dies (kill -9, a separate process): after the group's
     * session timeout (6 s here) the other node is chosen and stamps the next growth.
     */
    @Test
    void whenTheSchedulersNodeIsKilledTheOtherNodeTakesOverScheduledTimestamps() throws Exception {
        String topic = KafkaTestCluster.newTopic("die");
        String common = "cluster.mode=kafka\ncluster.bootstrap-servers=" + kafka.bootstrapServers()
                + "\ncluster.topic=" + topic + "\ncluster.write-timeout=" + WRITE_TIMEOUT
                + "\ncluster.kafka.session.timeout.ms=6000\ncluster.kafka.heartbeat.interval.ms=1000"
                + "\ntimestamp.interval=PT0.5S\ntimestamp.default-tsa-url=" + tsa.url()
                + "\ntimestamp.trust-anchors=" + tsaRoot + "\ntimestamp.timeout-ms=15000\n";
        Path config = dirs.resolve("d1.properties");
        Files.writeString(config, common + "cluster.node-id=d1\n");
        ServerProcess d1 = ServerProcess.start(dirs.resolve("d1"),
                "--config", config.toString());
        InProcessServer d2 = null;
        try {
            assertThat(awaitScheduler(Map.of("d1", d1.api()), "d1")).isEqualTo("d1");
            d2 = ClusterNodes.start(dirs.resolve("d2"), kafka.bootstrapServers(), "d2", topic, WRITE_TIMEOUT,
                    "cluster.kafka.session.timeout.ms", "6000", "cluster.kafka.heartbeat.interval.ms", "1000",
                    "timestamp.interval", "PT0.5S", "timestamp.default-tsa-url", tsa.url(),
                    "timestamp.trust-anchors", tsaRoot.toString(), "timestamp.timeout-ms", "15000");
            Api api = d2.api();
            for (int i = 0; i < 3; i++) {
                assertThat(api.post("/v1/events", event("die", i)).status()).isEqualTo(201);
            }
            awaitTimestampOf(api, 3);   // stamped by d1, stored on d2 through the topic
            Map<String, Object> both = new LinkedHashMap<>();
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
}
