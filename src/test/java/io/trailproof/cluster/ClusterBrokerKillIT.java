package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaProcessCluster;
import io.trailproof.testing.RunOrder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.trailproof.cluster.ClusterNodes.assertIdentical;
import static io.trailproof.cluster.ClusterNodes.postKeyed;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failover for real: a Kafka cluster of three KRaft nodes (broker + controller
 * each) in separate JVMs ({@link KafkaProcessCluster}), three trailproof nodes ingesting concurrently
 * with keyed requests (a 503 "outcome unknown" is retried with the same {@code Idempotency-Key}), and
 * the broker leading the topic's partition killed with SIGKILL in the middle of it; that broker is made
 * the active controller's node first, so the kill also takes the controller (the harder case: the
 * survivors elect a controller, which fences the dead broker and elects a partition leader). Then: writes resume
 * within 30 s of the kill; every acknowledged event is on every node; the nodes hold the same events
 * byte for byte at every log_index and the same root; and no event is stored twice nor one that was
 * never acknowledged.
 */
@Order(RunOrder.LONG)
class ClusterBrokerKillIT {

    private static final String TOPIC = "trailproof-brokerkill";
    /**
     * Short, so that requests caught by the failover answer 503 and the keyed retries are exercised
     * ({@code -Dbrokerkill.write-timeout=PT10S}, the default of cluster.write-timeout, to measure that).
     */
    private static final String WRITE_TIMEOUT = System.getProperty("brokerkill.write-timeout", "PT3S");
    private static final long RESUME_LIMIT_MILLIS = 30_000;

    /** Kept when the test fails: every Kafka node's full log (node-N/kafka.log) and the nodes' data. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dirs;

    /** One acknowledged write: the writer, its number, and the ids of its events. */
    private record Ack(String writer, int n, List<String> ids) {
    }

    @Test
    void theLeaderBrokerKilledWithSigkillDuringIngestLosesNoAcknowledgedEventAndWritesResume() throws Throwable {
        long t0 = System.nanoTime();
        KafkaProcessCluster kafka = KafkaProcessCluster.start(dirs.resolve("kafka"), 180);
        System.out.println("[brokerkill] Kafka (3 JVMs) started in " + millisSince(t0) + " ms");
        Map<String, InProcessServer> nodes = new LinkedHashMap<>();
        try {
            for (String id : List.of("n1", "n2", "n3")) {
                nodes.put(id, ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, TOPIC, WRITE_TIMEOUT,
                        "cluster.read-wait", "PT30S"));
            }
            run(kafka, nodes);
        } catch (Throwable e) {
            System.out.println("[brokerkill] failed; the Kafka nodes' logs (kept in " + dirs.resolve("kafka")
                    + ") end with:\n" + kafka.logTails(60));
            throw e;
        } finally {
            for (InProcessServer s : nodes.values()) {
                s.close();
            }
            kafka.close();
        }
    }

    private void run(KafkaProcessCluster kafka, Map<String, InProcessServer> nodes) throws Exception {
        Map<String, Api> apis = new LinkedHashMap<>();
        nodes.forEach((id, s) -> apis.put(id, s.api()));
        assertThat(postKeyed(apis.get("n1"), "/v1/events", event("warm-up", 0), "warm-up-0").status()).isEqualTo(201);
        // The harder case, on purpose: the partition leader is also the active controller, so the kill
        // takes both, and the two survivors must elect a controller before it can fence the dead broker
        // and elect a new partition leader.
        int controller = kafka.activeController();
        kafka.makeLeader(TOPIC, controller, 60);
        assertThat(kafka.inSyncReplicasOf(TOPIC)).as("every replica in sync before the kill").hasSize(3);

        // Writers: two on n1, two on n2 (single events), one on n3 (batches of 5). Each sends write n until
        // it is acknowledged (a 503 is retried with the same key and body), then write n + 1.
        List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong killedAt = new AtomicLong();
        AtomicLong resumedAt = new AtomicLong();
        AtomicInteger retries = new AtomicInteger();
        Map<String, String> writers = new LinkedHashMap<>();
        writers.put("n1-a", "n1");
        writers.put("n1-b", "n1");
        writers.put("n2-a", "n2");
        writers.put("n2-b", "n2");
        writers.put("n3-batch", "n3");
        ExecutorService pool = Executors.newFixedThreadPool(writers.size());
        List<Future<?>> work = new ArrayList<>();
        for (Map.Entry<String, String> w : writers.entrySet()) {
            String writer = w.getKey();
            Api api = apis.get(w.getValue());
            boolean batch = writer.endsWith("batch");
            work.add(pool.submit(() -> {
                for (int n = 0; !stop.get(); n++) {
                    String path = batch ? "/v1/batch" : "/v1/events";
                    String body = batch ? batch(writer, n, 5) : event(writer, n);
                    int number = n;
                    Await.untilTrue(writer + "-" + n + " acknowledged", Duration.ofSeconds(120), () -> {
                        long sentAt = System.nanoTime();
                        Api.Reply r = postKeyed(api, path, body, writer + "-" + number);
                        if (r.status() == 201) {
                            List<String> ids = new ArrayList<>();
                            if (batch) {
                                r.json().forEach(item -> ids.add(item.get("event").get("id").asText()));
                            } else {
                                ids.add(r.json().get("id").asText());
                            }
                            acks.add(new Ack(writer, number, ids));
                            long kill = killedAt.get();
                            if (kill != 0 && sentAt > kill) {
                                resumedAt.compareAndSet(0, System.nanoTime());
                            }
                            return true;
                        }
                        assertThat(r.status()).as(writer + "-" + number + ": " + r.body()).isEqualTo(503);
                        retries.incrementAndGet();
                        Await.pace(Duration.ofMillis(100), "the client's back-off before retrying a 503");
                        return false;
                    });
                }
                return null;
            }));
        }

        awaitAcks(acks, 30, 60);
        int leader = kafka.leaderOf(TOPIC);
        controller = kafka.activeController();
        int acksBefore = acks.size();
        killedAt.set(System.nanoTime());
        kafka.kill(leader);
        long killMillis = millisSince(killedAt.get());
        System.out.println("[brokerkill] SIGKILLed broker " + leader + " (partition leader"
                + (leader == controller ? " and active controller" : "; active controller " + controller + " kept")
                + ") after " + acksBefore + " acknowledged writes (kill + reap " + killMillis + " ms)");

        // Wait (generously: the machine is shared) for a write sent after the kill to be acknowledged,
        // then let the writers go on for a while on the new leader.
        // Meanwhile, when Kafka names a new partition leader (for the report: the rest is the clients').
        AtomicLong newLeaderSeen = new AtomicLong();
        Await.within(Duration.ofSeconds(90), () -> {
            if (newLeaderSeen.get() == 0) {
                try {
                    int now = kafka.leaderOf(TOPIC);
                    if (now != leader && now != -1) {
                        newLeaderSeen.set(System.nanoTime());
                    }
                } catch (Exception e) {
                    // no answer during the election: ask again
                }
            }
            return resumedAt.get() != 0 || work.stream().anyMatch(Future::isDone);
        });
        long newLeaderAt = newLeaderSeen.get();
        int acksAtResume = acks.size();
        if (resumedAt.get() != 0) {
            Await.pace(Duration.ofSeconds(2), "load: the writers go on for a while on the new leader");
        }
        stop.set(true);
        for (Future<?> f : work) {
            f.get(150, TimeUnit.SECONDS);   // each writer finishes its current write (acknowledged) first
        }
        pool.shutdown();
        assertThat(resumedAt.get()).as("a write sent after the kill was acknowledged").isNotZero();
        long resumeMillis = (resumedAt.get() - killedAt.get()) / 1_000_000;
        int newLeader = kafka.leaderOf(TOPIC);
        System.out.println("[brokerkill] writes resumed " + resumeMillis + " ms after the SIGKILL (new leader: broker "
                + newLeader + (newLeaderAt == 0 ? "" : ", named " + (newLeaderAt - killedAt.get()) / 1_000_000 + " ms after the kill")
                + "); " + acks.size() + " writes acknowledged in all (" + (acks.size() - acksAtResume)
                + " after the resume), " + retries.get() + " retries of a 503 with the same key");
        assertThat(resumeMillis).as("writes resume within 30 s of the kill").isLessThan(RESUME_LIMIT_MILLIS);
        assertThat(newLeader).isNotEqualTo(leader).isNotEqualTo(-1);
        assertThat(acks.size()).as("writes acknowledged after the resume").isGreaterThan(acksAtResume);

        // Every writer stopped after an acknowledged write, so nothing is left in flight: the log holds
        // the warm-up event and the acknowledged writes' events, each once, and nothing else.
        long size = 0;
        for (Api api : apis.values()) {
            size = Math.max(size, api.get("/v1/merkle/root").json().get("tree_size").asLong());
        }
        Map<String, List<JsonNode>> logs = assertIdentical(apis, size);
        for (Map.Entry<String, List<JsonNode>> log : logs.entrySet()) {   // events stamped in log order here
            for (int i = 0; i < log.getValue().size(); i++) {
                assertThat(log.getValue().get(i).get("log_index").asLong()).as(log.getKey() + " log_index").isEqualTo(i);
            }
        }
        List<JsonNode> events = logs.get("n1");
        Map<String, Integer> stored = new HashMap<>();
        for (JsonNode e : events) {
            stored.merge(e.get("agent_id").asText() + "#" + e.at("/metadata/n").asText() + "#" + e.at("/metadata/i").asText(), 1,
                    Integer::sum);
        }
        assertThat(stored.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                .as("events stored twice").isEmpty();
        long acknowledgedEvents = acks.stream().mapToLong(a -> a.ids().size()).sum();
        assertThat(size).as("events in the log = the warm-up + the acknowledged ones").isEqualTo(1 + acknowledgedEvents);
        for (Map.Entry<String, List<JsonNode>> log : logs.entrySet()) {
            Map<String, JsonNode> byId = new HashMap<>();
            log.getValue().forEach(e -> byId.put(e.get("id").asText(), e));
            for (Ack a : acks) {
                for (int i = 0; i < a.ids().size(); i++) {
                    JsonNode e = byId.get(a.ids().get(i));
                    assertThat(e).as("acknowledged " + a + " on " + log.getKey()).isNotNull();
                    assertThat(e.get("agent_id").asText()).isEqualTo(a.writer());
                    assertThat(e.at("/metadata/n").asInt()).isEqualTo(a.n());
                }
            }
        }
    }

    private static void awaitAcks(List<?> acks, int n, int seconds) throws InterruptedException {
        Await.until(n + " writes acknowledged before the kill", Duration.ofSeconds(seconds), () -> acks.size() >= n);
    }

    private static String event(String agent, int n) {
        return item(agent, n, 0);
    }

    private static String item(String agent, int n, int i) {
        return "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\",\"metadata\":{\"n\":"
                + n + ",\"i\":" + i + ",\"x\":4.50}}";
    }

    private static String batch(String agent, int n, int size) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < size; i++) {
            b.append(i == 0 ? "" : ",").append(item(agent, n, i));
        }
        return b.append(']').toString();
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }
}
