package io.trailproof.cluster;

import io.trailproof.backup.BackupManifest;
import io.trailproof.config.ConfigException;
import io.trailproof.config.SettingsLoader;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A topic of finite retention (src/site/cluster.md#topic-retention): the setting's bounds, the
 * topic's check against it, and the backup's topic offset a node joins from.
 */
class TopicRetentionTest {

    private static final Duration WEEK = Duration.ofDays(7);

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
    void theSettingIsOffByDefaultAndAtLeastAWeek() throws Exception {
        assertThat(SettingsLoader.load(Map.of(), Map.of(), null, false).cluster().topicRetention()).isNull();
        assertThat(SettingsLoader.load(Map.of("cluster.topic-retention", "P30D"), Map.of(), null, false).cluster()
                .topicRetention()).isEqualTo(Duration.ofDays(30));
        assertThat(SettingsLoader.load(Map.of("cluster.topic-retention", "P7D"), Map.of(), null, false).cluster()
                .topicRetention()).isEqualTo(WEEK);
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.topic-retention", "P6DT23H"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cluster.topic-retention")
                .hasMessageContaining("at least P7D");
        assertThatThrownBy(() -> SettingsLoader.load(Map.of("cluster.topic-retention", "a week"), Map.of(), null, false))
                .isInstanceOf(ConfigException.class).hasMessageContaining("cluster.topic-retention");
    }

    @Test
    void aTopicWithTheSettingsRetentionPassesAndAnyOtherIsRefused() throws Exception {
        String week = Long.toString(WEEK.toMillis());
        assertThat(TopicGuard.check("t", 1, 3, config(Map.of("retention.ms", week, "segment.ms", "86400000")), false,
                1000, WEEK)).isEmpty();
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of()), false, 1000, WEEK))
                .hasMessageContaining("retention.ms=-1").hasMessageContaining("cluster.topic-retention is PT168H");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("retention.ms", "1209600000")), false, 1000,
                WEEK)).hasMessageContaining("set the topic's retention.ms to " + week);
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("retention.ms", week)), false, 1000, null))
                .hasMessageContaining("finite retention").hasMessageContaining("cluster.topic-retention");
        assertThatThrownBy(() -> TopicGuard.check("t", 1, 3, config(Map.of("retention.ms", week,
                "retention.bytes", "1000000")), false, 1000, WEEK)).hasMessageContaining("retention.bytes=1000000");
        // A segment rolled less often than daily keeps erased content in Kafka longer than the docs say.
        assertThat(TopicGuard.check("t", 1, 3, config(Map.of("retention.ms", week)), false, 1000, WEEK))
                .singleElement().asString().contains("segment.ms=604800000");
    }

    @Test
    void aBackupNamesTheTopicOffsetItCovers() {
        String h = "ab".repeat(32);
        BackupManifest m = new BackupManifest(Instant.parse("2026-11-25T19:00:00Z"), 42, h,
                List.of(new BackupManifest.FileEntry("log/00000000000000000000.seg", 1234, h)), 57L);
        assertThat(new String(m.toJson(), StandardCharsets.UTF_8)).contains("\"topic_offset\" : 57");
        assertThat(BackupManifest.parse(m.toJson())).isEqualTo(m);
        BackupManifest single = new BackupManifest(m.createdAt(), 42, h, m.files());
        assertThat(BackupManifest.parse(single.toJson()).topicOffset()).isNull();
    }
}
