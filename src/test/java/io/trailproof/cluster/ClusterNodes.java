package io.trailproof.cluster;

import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.http.OpenApiContract;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/** What the cluster tests do to and check on several trailproof nodes and their topic. */
final class ClusterNodes {

    private ClusterNodes() {
    }

    /** The OpenAPI document, for checking the cluster's answers against their schemas. */
    static final OpenApiContract CONTRACT = loadContract();

    private static OpenApiContract loadContract() {
        try {
            return OpenApiContract.load();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A trailproof node in cluster mode on {@code topic} with data in {@code dir}, plus the settings in
     * {@code more} (key, value, ...).
     */
    static InProcessServer start(Path dir, String bootstrapServers, String nodeId,
                                                       String topic, String writeTimeout, String... more) throws Exception {
        List<String> settings = new ArrayList<>(List.of("cluster.mode", "kafka", "cluster.bootstrap-servers",
                bootstrapServers, "cluster.node-id", nodeId, "cluster.topic", topic, "cluster.write-timeout", writeTimeout));
        settings.addAll(List.of(more));
        return InProcessServer.start(dir, settings.toArray(String[]::new));
    }

    /** One event of {@code agent}, numbers included that RFC 8785 rewrites (4.50, 1E30). */
    static String event(String agent, int i) {
        return "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\",\"metadata\":{\"i\":"
                + i + ",\"x\":4.50,\"big\":1E30}}";
    }

    /**
     * The check of the cluster design: every node reaches {@code size}; then every event, as the API
     * returns it, and the root are compared byte for byte across the nodes. Returns each node's
     * events in the order {@code GET /v1/events?order=asc} lists them (by timestamp, then log_index).
     */
    static Map<String, List<JsonNode>> assertIdentical(Map<String, Api> apis, long size) throws Exception {
        String firstRoot = null;
        List<String> firstPages = null;
        Map<String, List<JsonNode>> logs = new LinkedHashMap<>();
        for (Map.Entry<String, Api> node : apis.entrySet()) {
            String id = node.getKey();
            Api api = node.getValue();
            Api.Reply root = api.get("/v1/merkle/root?tree_size=" + size + "&min_tree_size=" + size);
            assertThat(root.status()).as(id + " reaches size " + size + ": " + root.body()).isEqualTo(200);
            List<String> pages = new ArrayList<>();
            List<JsonNode> events = new ArrayList<>();
            for (long offset = 0; offset < size; offset += 1000) {
                Api.Reply page = api.get("/v1/events?order=asc&limit=1000&offset=" + offset);
                assertThat(page.status()).isEqualTo(200);
                pages.add(page.body());
                page.json().forEach(events::add);
            }
            assertThat(events).as(id + " events").hasSize((int) size);
            assertThat(api.get("/v1/merkle/root").json().get("tree_size").asLong()).as(id + " size").isEqualTo(size);
            if (firstRoot == null) {
                firstRoot = root.body();
                firstPages = pages;
            } else {
                assertThat(root.body()).as("root of " + id).isEqualTo(firstRoot);
                assertThat(pages).as("events of " + id + ", byte for byte").isEqualTo(firstPages);
            }
            logs.put(id, events);
        }
        return logs;
    }

    static Api.Reply postKeyed(Api api, String path, String body, String key) throws Exception {
        return api.send(HttpRequest.newBuilder(URI.create(api.base() + path))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** Produces {@code value} to partition 0 of {@code topic} as it is: what no node validated (a forged or broken record). */
    static void produceRaw(String bootstrapServers, String topic, byte[] value) throws Exception {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
        }
    }


    /** The values of the records of partition 0 of {@code topic} from {@code from} to its end, as text. */
    static List<String> records(String bootstrapServers, String topic, long from) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("enable.auto.commit", "false");
        List<String> out = new ArrayList<>();
        TopicPartition p = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(
                props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            c.assign(List.of(p));
            long end = c.endOffsets(List.of(p)).get(p);
            c.seek(p, from);
            while (c.position(p) < end) {
                for (var r : c.poll(Duration.ofMillis(500))) {
                    out.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    /**
     * Waits up to {@code seconds} until the scheduler group of {@code topic} (the consumer group
     * {@code trailproof-<topic>-scheduler}) is stable with {@code members} members: every node has
     * joined and no rebalance is pending, so the node running the scheduled work stays the same until
     * one leaves. A test that counts what the scheduled work did needs this, not only one scheduler:
     * a node joining late moves the work once more, and a node given it runs its work at once.
     */
    static boolean awaitSchedulerGroup(String bootstrapServers, String topic, int members, int seconds) throws Exception {
        String group = "trailproof-" + topic + "-scheduler";
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            return Await.within(Duration.ofSeconds(seconds), () -> {
                try {
                    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
                    return d.groupState() == GroupState.STABLE && d.members().size() == members;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof GroupIdNotFoundException) {
                        return false; // no node has joined yet
                    }
                    throw e;
                }
            });
        }
    }
}
