package io.trailproof.testing;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A real Kafka cluster in the test JVM (KRaft): one controller and three brokers, as the cluster
 * mode's topic needs (replication 3, min.insync.replicas 2). About 6 s to start. Brokers can be
 * shut down (cleanly: the in-process kit has no kill -9) to test failover.
 */
public final class KafkaTestCluster implements AutoCloseable {

    private final KafkaClusterTestKit kit;

    private KafkaTestCluster(KafkaClusterTestKit kit) {
        this.kit = kit;
    }

    /**
     * The brokers and clients of the test JVM log through SLF4J into java.util.logging, whose console
     * handler would print every INFO record of three brokers and a controller: their warnings are enough.
     */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("kafka"), Logger.getLogger("org.apache.kafka"));

    public static KafkaTestCluster start() throws Exception {
        QUIET.forEach(l -> l.setLevel(Level.WARNING));
        KafkaClusterTestKit kit = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(false)
                .setNumControllerNodes(1)
                .setNumBrokerNodes(3)
                .build())
                // Replicas drop out of the ISR (and a dead leader is replaced) quickly, so failover
                // tests take seconds, not the 30 s defaults.
                .setConfigProp("replica.lag.time.max.ms", "3000")
                .setConfigProp("broker.session.timeout.ms", "3000")
                .setConfigProp("broker.heartbeat.interval.ms", "500")
                // A stopped broker vanishes as a crashed one does: no hand-over of its leaderships first.
                .setConfigProp("controlled.shutdown.enable", "false")
                .build();
        kit.format();
        kit.startup();
        kit.waitForReadyBrokers();
        return new KafkaTestCluster(kit);
    }

    public String bootstrapServers() {
        return kit.bootstrapServers();
    }

    public Admin admin() {
        return kit.admin();
    }

    /** The broker that leads partition 0 of {@code topic}. */
    public int leaderOf(String topic) throws Exception {
        try (Admin admin = kit.admin()) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            return d.partitions().get(0).leader().id();
        }
    }

    /**
     * Stops broker {@code id} without a controlled shutdown (its leaderships are not handed over first:
     * the controller finds out when its session times out, as after a crash; the in-process kit has
     * no kill -9). Its data stays; it does not come back in this kit.
     */
    public void stopBroker(int id) {
        kit.brokers().get(id).shutdown();
        kit.brokers().get(id).awaitShutdown();
    }

    public java.util.Set<Integer> brokerIds() {
        return kit.brokers().keySet();
    }

    @Override
    public void close() throws Exception {
        kit.close();
    }
}
