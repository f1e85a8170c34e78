package io.trailproof.cluster;

import java.time.Duration;
import io.trailproof.testing.Await;
import io.trailproof.testing.ByteSearch;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.KafkaTestCluster;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import io.trailproof.testing.SharedKafka;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kill -9 of a cluster node while it applies an erasure record (src/site/erasure.md#cluster-mode):
 * once after the erasure event is on disk and the log rewritten (the index not purged yet), once
 * after the pending marker is written and before the erasure event is. Restarted, the node finishes
 * the erasure (or applies the record again, whole), neither applies it twice nor skips it, and ends
 * byte for byte like the node that answered, with no byte of the erased content in its data directory.
 */
@ExtendWith(SharedKafka.class)
@Order(RunOrder.SHARED_KAFKA)
class ClusterErasureCrashIT {

    @TempDir
    Path dirs;

    private static String event(String agent, String text) {
        return "{\"agent_id\":\"" + agent + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\","
                + "\"action_input\":{\"text\":\"" + text + "\"}}";
    }

    private ServerProcess startKilled(Path config, String pauseAt) throws Exception {
        Map<String, String> env = pauseAt == null ? Map.of()
                : Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx512m -Dtrailproof.testing.pause-erasure-at=" + pauseAt);
        return ServerProcess.start(dirs.resolve("k1"), env, "--config", config.toString());
    }

    @Test
    void aNodeKilledWhileApplyingAnErasureFinishesItOnceAtRestart(KafkaTestCluster kafka) throws Exception {
        String topic = KafkaTestCluster.newTopic("erasure-crash");
        try (InProcessServer n1 = ClusterNodes.start(dirs.resolve("n1"), kafka.bootstrapServers(), "n1", topic, "PT10S",
                "cluster.read-wait", "PT30S")) {
            Path config = dirs.resolve("k1.properties");
            Files.writeString(config, "cluster.mode=kafka\ncluster.bootstrap-servers=" + kafka.bootstrapServers()
                    + "\ncluster.node-id=k1\ncluster.topic=" + topic + "\ncluster.write-timeout=PT10S\n"
                    + "cluster.read-wait=PT30S\n");
            Api a = n1.api();
            long size = 0;
            String[] cycles = {"log-rewritten", "erasure-started"};
            ServerProcess k1 = startKilled(config, cycles[0]);
            try {
                for (int c = 0; c < cycles.length; c++) {
                    String marker = "clustercrashmk" + c + "x";
                    for (int i = 0; i < 4; i++) {
                        Api.Reply r = a.post("/v1/events", i % 2 == 0 ? event("subject" + c, marker + i)
                                : event("keeper", "keptcrash" + c + "x" + i));
                        assertThat(r.status()).as(r.body()).isEqualTo(201);
                    }
                    size += 4;
                    ClusterNodes.assertIdentical(Map.of("n1", a, "k1", k1.api()), size);
                    Api.Reply erased = a.post("/v1/admin/erasures", "{\"agent_id\":\"subject" + c + "\",\"reason\":\"r\"}");
                    assertThat(erased.status()).as(erased.body()).isEqualTo(200);
                    size += 1;
                    assertThat(k1.awaitOutput("erasure paused at " + cycles[c] + ":1", 120_000))
                            .as("k1 paused at " + cycles[c] + ":\n" + k1.outputSoFar()).isTrue();
                    k1.kill();
                    k1 = startKilled(config, c + 1 < cycles.length ? cycles[c + 1] : null);
                    Map<String, Api> apis = new LinkedHashMap<>(Map.of("n1", a, "k1", k1.api()));
                    ClusterNodes.assertIdentical(apis, size);
                    assertThat(k1.api().get("/v1/admin/erasures").body()).isEqualTo(a.get("/v1/admin/erasures").body());
                    assertThat(k1.api().get("/v1/admin/erasures").json()).hasSize(c + 1);
                    Api.Reply cluster = k1.api().get("/v1/cluster");
                    assertThat(cluster.json().get("applying").asBoolean()).as(cluster.body()).isTrue();
                    Path k1dir = dirs.resolve("k1");
                    assertThat(Await.within(Duration.ofSeconds(60), () -> ByteSearch.filesContaining(k1dir, marker).isEmpty()))
                            .as("files of k1 with the erased content: " + ByteSearch.filesContaining(k1dir, marker))
                            .isTrue();
                    assertThat(Files.exists(k1dir.resolve("erasure-pending"))).isFalse();
                }
            } finally {
                k1.close();
            }
        }
    }
}
