package io.trailproof.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.clients.admin.MockAdminClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

class TopicGuardTest {

    private static Config config(Map<String, String> overrides) {
        Map<String, String> all = new HashMap<>(Map.of("retention.ms", "-1", "retention.bytes", "-1",
                "cleanup.policy", "delete", "message.timestamp.type", "LogAppendTime", "max.message.bytes", "40000000",
                "min.insync.replicas", "2"));
        all.putAll(overrides);
        List<ConfigEntry> entries = new ArrayList<>();
        all.forEach((k, v) -> entries.add(new ConfigEntry(k, v)));
        return new Config(entries);
    }

    @Test
    void aSafeTopicPasses() throws Exception {
        assertThat(TopicGuard.check("t", 1, 3, config(Map.of()), false, 1000)).isEmpty();
    }

    @Test
    void eachUnsafeSettingIsRefusedByName() {
        assertThatThrownBy(() -> TopicGuard.check("t", 2, 3, config(Map.of()), false, 1000)).hasMessageContaining("2 partitions");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("retention.ms", "604800000")), false, 1000))
                .hasMessageContaining("retention.ms=604800000");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("cleanup.policy", "compact")), false, 1000))
                .hasMessageContaining("cleanup.policy=compact");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("message.timestamp.type", "CreateTime")), false, 1000))
                .hasMessageContaining("LogAppendTime");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("max.message.bytes", "100")), false, 1000))
                .hasMessageContaining("max.message.bytes=100");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 1, config(Map.of()), false, 1000))
                .hasMessageContaining("replication factor 1").hasMessageContaining("cluster.allow-unsafe-topic");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("min.insync.replicas", "1")), false, 1000))
                .hasMessageContaining("min.insync.replicas 1");
    }

    /**
     * Under load a broker may answer "unknown topic" for a topic another broker just described (it was
     * created a moment ago): asked again, not refused (a node once failed to start on it).
     */
    @Test
    void aTopicTheAnsweringBrokerDoesNotKnowYetIsAskedAgain() throws Exception {
        AtomicInteger unknownAnswers = new AtomicInteger(3);
        try (MockAdminClient admin = new MockAdminClient(List.of(new Node(0, "localhost", 9092)), new Node(0, "localhost", 9092)) {
            @Override
            public synchronized DescribeConfigsResult describeConfigs(Collection<ConfigResource> resources,
                                                                      DescribeConfigsOptions options) {
                if (unknownAnswers.getAndDecrement() > 0) {   // as a broker that has not heard of the topic
                    return super.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "not-yet")), options);
                }
                return super.describeConfigs(resources, options);
            }
        }) {
            assertThat(TopicGuard.ensure(admin, "t", 1, true, 1000)).singleElement().asString().contains("LOST");
            assertThat(unknownAnswers.get()).isNegative();
        }
    }

    @Test
    void allowUnsafeTopicAcceptsLowReplicationWithAWarning() throws Exception {
        assertThat(TopicGuard.check("t", 1, 1, config(Map.of("min.insync.replicas", "1")), true, 1000))
                .singleElement().asString().contains("LOST");
    }
}
