package io.trailproof.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.junit.jupiter.api.Test;

class TopicGuardTest {

    private static Config config(Map<String, String> overrides) {
        Map<String, String> all = new java.util.HashMap<>(Map.of("retention.ms", "-1", "retention.bytes", "-1",
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

    @Test
    void allowUnsafeTopicAcceptsLowReplicationWithAWarning() throws Exception {
        assertThat(TopicGuard.check("t", 1, 1, config(Map.of("min.insync.replicas", "1")), true, 1000))
                .singleElement().asString().contains("LOST");
    }
}
