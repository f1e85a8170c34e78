package io.trailproof.cluster;

import io.trailproof.testing.ByteSearch;
import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.SharedKafka;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Erasure and retention in cluster mode (src/site/erasure.md#cluster-mode) on a real 3-broker Kafka
 * (the shared one: {@link SharedKafka}) and three nodes: an erasure is one record of the
 * topic, applied by every node at the same position, so every node serves the same bytes and no
 * node's data directory keeps a byte of the erased content; a retention pass is run by the node
 * running the cluster's scheduled work only.
 */
@ExtendWith(SharedKafka.class)
@Order(RunOrder.SHARED_KAFKA)
class ClusterErasureIT {

    private static final String WRITE_TIMEOUT = "PT10S";
    /** retention.content-after of the retention test's nodes. */
    private static final Duration CONTENT_AFTER = Duration.ofSeconds(2);

    @TempDir
    static Path dirs;

    private static KafkaTestCluster kafka;

    @BeforeAll
    static void useKafka(KafkaTestCluster shared) {
        kafka = shared;
    }

    private static String event(String agent, String text) {
        return "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\","
                + "\"action_input\":{\"text\":\"" + text + "\"},\"metadata\":{\"x\":4.50}}";
    }

    private static long erasureRecords(String topic) {
        return ClusterNodes.records(kafka.bootstrapServers(), topic, 0).stream()
                .filter(v -> v.contains("\"answer\":\"erasure\"")).count();
    }

    @Test
    void anErasureGoesThroughTheTopicAndEveryNodeHoldsTheSameBytesAfterIt() throws Exception {
        String topic = KafkaTestCluster.newTopic("erasure");
        String marker = "clustererasemk";
        Map<String, InProcessServer> nodes = new LinkedHashMap<>();
        try {
            for (String id : List.of("e1", "e2", "e3")) {
                nodes.put(id, ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, topic, WRITE_TIMEOUT,
                        "cluster.read-wait", "PT20S"));
            }
            Map<String, Api> apis = new LinkedHashMap<>();
            nodes.forEach((id, n) -> apis.put(id, n.api()));
            List<String> subject = new ArrayList<>();
            int i = 0;
            for (String id : List.of("e1", "e2", "e3", "e1", "e2", "e3", "e1")) {
                Api.Reply kept = apis.get(id).post("/v1/events", event("keeper", "keepme" + i));
                assertThat(kept.status()).as(kept.body()).isEqualTo(201);
                Api.Reply s = apis.get(id).post("/v1/events", event("subject", marker + i));
                assertThat(s.status()).as(s.body()).isEqualTo(201);
                subject.add(s.json().get("id").asText());
                i++;
            }
            ClusterNodes.assertIdentical(apis, 14);
            long offsets = ClusterNodes.records(kafka.bootstrapServers(), topic, 0).size();

            // An unknown id: 404 before anything is produced.
            Api.Reply unknown = apis.get("e2").post("/v1/admin/erasures", "{\"event_ids\":[\"" + subject.get(0)
                    + "\",\"01JD0000000000000000000000\"],\"reason\":\"r\"}");
            assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
            assertThat(ClusterNodes.records(kafka.bootstrapServers(), topic, 0)).hasSize((int) offsets);

            // A dry run on any node changes nothing.
            Api.Reply dry = apis.get("e3").post("/v1/admin/erasures",
                    "{\"agent_id\":\"subject\",\"reason\":\"gdpr\",\"dry_run\":true}");
            assertThat(dry.status()).as(dry.body()).isEqualTo(200);
            assertThat(dry.json().get("would_erase").asInt()).isEqualTo(7);
            assertThat(dry.json().get("already_erased").asInt()).isZero();

            Api.Reply erased = apis.get("e1").post("/v1/admin/erasures", "{\"agent_id\":\"subject\",\"reason\":\"gdpr\"}");
            assertThat(erased.status()).as(erased.body()).isEqualTo(200);
            assertThat(ClusterNodes.CONTRACT.validate(ClusterNodes.CONTRACT.document()
                    .at("/paths/~1v1~1admin~1erasures/post/responses/200/content/application~1json/schema"),
                    erased.json())).isEmpty();
            assertThat(erased.json().get("erased").asInt()).isEqualTo(7);
            assertThat(erased.json().get("log_index").asLong()).isEqualTo(14);
            // The node that answered holds no byte of the content from the moment it answered (idle).
            assertThat(ByteSearch.filesContaining(dirs.resolve("e1"), marker)).as("files of e1 with the content").isEmpty();

            for (String id : List.of("e2", "e3")) {
                Api api = apis.get(id);
                assertThat(Await.within(Duration.ofSeconds(60), () -> {
                    Api.Reply r = api.get("/v1/events/" + subject.get(6) + "?min_tree_size=15");
                    return r.status() == 200 && r.json().has("erased")
                            && ByteSearch.filesContaining(dirs.resolve(id), marker).isEmpty();
                })).as(id + " applied the erasure; files with the content: "
                        + ByteSearch.filesContaining(dirs.resolve(id), marker)).isTrue();
            }
            Map<String, List<JsonNode>> logs = ClusterNodes.assertIdentical(apis, 15);
            for (List<JsonNode> log : logs.values()) {
                long erasedCount = log.stream().filter(e -> e.has("erased")).count();
                assertThat(erasedCount).isEqualTo(7);
                assertThat(log.stream().filter(e -> e.get("agent_id").asText().equals("keeper"))
                        .noneMatch(e -> e.has("erased"))).isTrue();
            }
            String listed = null;
            for (Map.Entry<String, Api> n : apis.entrySet()) {
                Api.Reply list = n.getValue().get("/v1/admin/erasures");
                assertThat(list.status()).as(list.body()).isEqualTo(200);
                assertThat(list.json()).hasSize(1);
                assertThat(list.json().get(0).get("id").asText()).isEqualTo(erased.json().get("erasure_id").asText());
                listed = listed == null ? list.body() : listed;
                assertThat(list.body()).as("erasures listed by " + n.getKey()).isEqualTo(listed);
                Api.Reply verify = n.getValue().get("/v1/verify?agent_id=subject");
                assertThat(verify.json().get("valid").asBoolean()).as(verify.body()).isTrue();
                assertThat(verify.json().get("erased").asInt()).isEqualTo(7);
            }
            assertThat(erasureRecords(topic)).isEqualTo(1);

            // Erasing them again erases nothing: 409, and no erasure event on any node, every node alike.
            Api.Reply again = apis.get("e2").post("/v1/admin/erasures", "{\"event_ids\":[\"" + subject.get(0)
                    + "\"],\"reason\":\"again\"}");
            assertThat(again.status()).as(again.body()).isEqualTo(409);
            assertThat(again.json().get("error").asText()).contains("erased already").contains("nothing was erased");
            ClusterNodes.assertIdentical(apis, 15);
            for (Api node : apis.values()) {
                assertThat(node.get("/v1/admin/erasures").json()).hasSize(1);
            }
        } finally {
            for (InProcessServer n : nodes.values()) {
                n.close();
            }
        }
    }

    @Test
    void theRetentionPassRunsOnTheSchedulingNodeOnlyAndReachesEveryNode() throws Exception {
        String topic = KafkaTestCluster.newTopic("retention");
        String marker = "clusterretainmk";
        Map<String, InProcessServer> nodes = new LinkedHashMap<>();
        try {
            for (String id : List.of("r1", "r2", "r3")) {
                nodes.put(id, startRetaining(id, topic));
            }
            // One node runs the scheduled work once the group settled with all three; its first pass
            // found nothing.
            assertThat(ClusterNodes.awaitSchedulerGroup(kafka.bootstrapServers(), topic, 3, 60)).isTrue();
            assertThat(Await.within(Duration.ofSeconds(60), () -> schedulers(nodes).size() == 1)).isTrue();
            Instant lastRecorded = null;
            for (int i = 0; i < 5; i++) {
                Api.Reply r = nodes.get("r" + (i % 3 + 1)).api().post("/v1/events", event("agent", marker + i));
                assertThat(r.status()).as(r.body()).isEqualTo(201);
                lastRecorded = Instant.parse(r.json().get("recorded_at").asText());
            }
            Instant allOld = lastRecorded.plus(CONTENT_AFTER);
            Await.until("every event is older than retention.content-after", Duration.ofSeconds(30),
                    () -> Instant.now().isAfter(allOld));
            assertThat(erasureRecords(topic)).isZero();
            // The scheduling node leaves: the one chosen next runs a pass at once, through the topic.
            String leader = schedulers(nodes).get(0);
            nodes.remove(leader).close();
            Map<String, Api> apis = new LinkedHashMap<>();
            nodes.forEach((id, n) -> apis.put(id, n.api()));
            for (Map.Entry<String, Api> n : apis.entrySet()) {
                assertThat(Await.within(Duration.ofSeconds(90), () -> {
                    Api.Reply list = n.getValue().get("/v1/admin/erasures");
                    return list.status() == 200 && list.json().size() == 1
                            && ByteSearch.filesContaining(dirs.resolve(n.getKey()), marker).isEmpty();
                })).as(n.getKey() + " applied the retention pass").isTrue();
                JsonNode erasure = n.getValue().get("/v1/admin/erasures").json().get(0);
                assertThat(erasure.at("/action_input/reason").asText()).isEqualTo("retention");
                assertThat(erasure.at("/action_input/count").asInt()).isEqualTo(5);
            }
            ClusterNodes.assertIdentical(apis, 6);
            assertThat(erasureRecords(topic)).as("erasure records on the topic").isEqualTo(1);
            // The node that left catches up to the same bytes, and its files lose the content too.
            // (It applies the erasure record, then the erasure itself: the bytes compare once its
            // files have lost the content, as the other nodes' did above.)
            nodes.put(leader, startRetaining(leader, topic));
            apis.put(leader, nodes.get(leader).api());
            assertThat(Await.within(Duration.ofSeconds(90), () -> {
                Api.Reply list = apis.get(leader).get("/v1/admin/erasures");
                return list.status() == 200 && list.json().size() == 1
                        && ByteSearch.filesContaining(dirs.resolve(leader), marker).isEmpty();
            })).as(leader + " applied the retention pass").isTrue();
            Map<String, List<JsonNode>> logs = ClusterNodes.assertIdentical(apis, 6);
            assertThat(logs.get(leader).stream().filter(e -> e.has("erased")).count()).isEqualTo(5);
            assertThat(erasureRecords(topic)).isEqualTo(1);
        } finally {
            for (InProcessServer n : nodes.values()) {
                n.close();
            }
        }
    }

    private static InProcessServer startRetaining(String id, String topic) throws Exception {
        return ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, topic, WRITE_TIMEOUT,
                "cluster.read-wait", "PT20S", "retention.content-after", CONTENT_AFTER.toString(),
                "retention.allow-short", "true");
    }

    private static List<String> schedulers(Map<String, InProcessServer> nodes) throws Exception {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, InProcessServer> n : nodes.entrySet()) {
            if (n.getValue().api().get("/v1/cluster").json().get("scheduler").asBoolean()) {
                out.add(n.getKey());
            }
        }
        return out;
    }
}
