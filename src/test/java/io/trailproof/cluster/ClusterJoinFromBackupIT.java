package io.trailproof.cluster;

import java.time.Duration;
import io.trailproof.testing.Await;
import io.trailproof.testing.ByteSearch;
import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Cli;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.SharedKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A topic of finite retention (src/site/cluster.md#topic-retention) on a real 3-broker Kafka (the
 * shared one, {@link SharedKafka}; the test deletes records of its own topic only): once
 * the topic's start is deleted, a node with an empty data directory refuses to start and says to
 * restore a peer's backup; restored from node A's backup, it consumes the topic from the offset the
 * backup covers and ends byte for byte like A, an erasure applied after the backup included.
 */
@ExtendWith(SharedKafka.class)
@Order(RunOrder.SHARED_KAFKA)
class ClusterJoinFromBackupIT {

    private final String topic = KafkaTestCluster.newTopic("join");

    @TempDir
    Path dirs;

    private static String event(String agent, String text) {
        return "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\","
                + "\"action_input\":{\"text\":\"" + text + "\"}}";
    }

    private InProcessServer start(KafkaTestCluster kafka, String id) throws Exception {
        return ClusterNodes.start(dirs.resolve(id), kafka.bootstrapServers(), id, topic, "PT10S",
                "cluster.read-wait", "PT20S", "cluster.topic-retention", "P7D");
    }

    @Test
    void aNodeBehindTheTopicsStartRefusesAndJoinsFromAPeersBackup(KafkaTestCluster kafka) throws Exception {
        String marker = "joinerasemk";
        Map<String, InProcessServer> nodes = new LinkedHashMap<>();
        try {
            nodes.put("a", start(kafka, "a"));
            nodes.put("b", start(kafka, "b"));
            Api a = nodes.get("a").api();
            Api b = nodes.get("b").api();
            Config retention;
            try (Admin admin = kafka.admin()) {
                retention = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic)))
                        .all().get(30, TimeUnit.SECONDS).values().iterator().next();
            }
            assertThat(retention.get("retention.ms").value()).isEqualTo("604800000");
            assertThat(retention.get("segment.ms").value()).isEqualTo("86400000");
            for (int i = 0; i < 6; i++) {
                Api.Reply r = (i % 2 == 0 ? a : b).post("/v1/events", event(i % 3 == 0 ? "subject" : "keeper",
                        (i % 3 == 0 ? marker : "keep") + i));
                assertThat(r.status()).as(r.body()).isEqualTo(201);
            }
            ClusterNodes.assertIdentical(Map.of("a", a, "b", b), 6);

            // A's backup, and the topic offset it covers.
            Path tar = dirs.resolve("a.tar");
            HttpResponse<Path> got = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(a.base() + "/v1/admin/backup")).build(), HttpResponse.BodyHandlers.ofFile(tar));
            assertThat(got.statusCode()).isEqualTo(200);
            JsonNode manifest = Api.JSON.readTree(firstEntry(Files.readAllBytes(tar)));
            assertThat(manifest.get("tree_size").asLong()).isEqualTo(6);
            long covered = manifest.get("topic_offset").asLong();
            assertThat(covered).isEqualTo(a.get("/v1/cluster").json().get("applied_offset").asLong());

            // More after the backup: events, and an erasure of content the backup holds.
            for (int i = 6; i < 9; i++) {
                assertThat(b.post("/v1/events", event("keeper", "after" + i)).status()).isEqualTo(201);
            }
            Api.Reply erased = b.post("/v1/admin/erasures", "{\"agent_id\":\"subject\",\"reason\":\"gdpr\"}");
            assertThat(erased.status()).as(erased.body()).isEqualTo(200);
            assertThat(erased.json().get("erased").asInt()).isEqualTo(2);
            assertThat(a.post("/v1/events", event("keeper", "last")).status()).isEqualTo(201);

            // Retention deleted the topic's start, up to the offset the backup covers.
            TopicPartition p = new TopicPartition(topic, 0);
            try (Admin admin = kafka.admin()) {
                admin.deleteRecords(Map.of(p, RecordsToDelete.beforeOffset(covered + 1))).all().get(30, TimeUnit.SECONDS);
            }

            Path c = dirs.resolve("c");
            assertThatThrownBy(() -> start(kafka, "c")).hasMessageContaining("starts at offset " + (covered + 1))
                    .hasMessageContaining("Restore a peer's backup");
            deleteTree(c);   // the refused start made an empty data directory
            Cli.Run restore = Cli.run("restore", tar.toString(), "--data-dir", c.toString());
            assertThat(restore.exit()).as(restore.toString()).isZero();
            nodes.put("c", start(kafka, "c"));
            Map<String, Api> apis = new LinkedHashMap<>();
            nodes.forEach((id, n) -> apis.put(id, n.api()));
            Map<String, List<JsonNode>> logs = ClusterNodes.assertIdentical(apis, 11);
            assertThat(logs.get("c").stream().filter(e -> e.has("erased")).count()).isEqualTo(2);
            assertThat(apis.get("c").get("/v1/admin/erasures").body()).isEqualTo(a.get("/v1/admin/erasures").body());
            assertThat(Await.within(Duration.ofSeconds(60), () -> ByteSearch.filesContaining(c, marker).isEmpty()))
                    .as("files of c with the erased content: " + ByteSearch.filesContaining(c, marker)).isTrue();
            // And it goes on with the others.
            assertThat(apis.get("c").post("/v1/events", event("keeper", "fromc")).status()).isEqualTo(201);
            ClusterNodes.assertIdentical(apis, 12);
        } finally {
            for (InProcessServer n : nodes.values()) {
                n.close();
            }
        }
    }

    /** The content of a ustar archive's first entry (the backup's MANIFEST.json). */
    private static byte[] firstEntry(byte[] tar) {
        String size = new String(tar, 124, 11, StandardCharsets.US_ASCII).trim();
        return Arrays.copyOfRange(tar, 512, 512 + Integer.parseInt(size, 8));
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(all::add);
        }
        for (Path f : all) {
            Files.delete(f);
        }
    }
}
