package io.trailproof.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.config.Settings;
import io.trailproof.config.SettingsLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * Retention in cluster mode (src/site/erasure.md#retention) is refused at start with a message naming
 * the key, before the data directory or Kafka is touched.
 */
class RetentionStartTest {

    @TempDir
    Path dir;

    @Test
    void retentionInClusterModeIsRefusedAtStart() throws Exception {
        Path data = dir.resolve("data");
        Settings s = SettingsLoader.load(Map.of("cluster.mode", "kafka", "cluster.bootstrap-servers", "127.0.0.1:1",
                "cluster.node-id", "n1", "retention.content-after", "P1Y", "data.dir", data.toString()), Map.of(), null,
                false);
        assertThatThrownBy(() -> TrailproofServer.start(s, Clock.systemUTC()))
                .isInstanceOf(TrailproofServer.StartException.class)
                .hasMessageContaining("retention.content-after").hasMessageContaining("cluster mode");
        assertThat(Files.exists(data)).isFalse();
    }
}
