package io.trailproof.testing;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A real Kafka cluster in the test JVM (KRaft): one controller and three brokers, as the cluster
 * mode's topic needs (replication 3, min.insync.replicas 2). A few seconds to start, most of it
 * loading Kafka's classes the first time in the JVM; while it runs, its four nodes share the test
 * JVM's CPU.
 *
 * <p>Most tests use the one cluster {@link SharedKafka} hands to the test classes of the JVM running
 * at the time, each on topics of its own ({@link #newTopic}); a test that stops brokers starts a cluster of its own
 * ({@link #start}), since a stopped broker does not come back in this kit. Brokers are shut down
 * cleanly (the in-process kit has no kill -9); kill -9 of a broker is {@link KafkaProcessCluster}'s.
 */
public final class KafkaTestCluster implements AutoCloseable {

    /** Numbers the topics handed out in this JVM, so that no two tests ever share one. */
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private final KafkaClusterTestKit kit;
    private final boolean shared;

    private KafkaTestCluster(KafkaClusterTestKit kit, boolean shared) {
        this.kit = kit;
        this.shared = shared;
    }

    /**
     * The brokers and clients of the test JVM log through SLF4J into java.util.logging, whose console
     * handler would print every INFO record of three brokers and a controller: their warnings are enough.
     */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("kafka"), Logger.getLogger("org.apache.kafka"));

    /** A cluster of the caller's own, which it may stop brokers of and must close. */
    public static KafkaTestCluster start() throws Exception {
        return new KafkaTestCluster(startKit(), false);
    }

    /** The cluster {@link SharedKafka} shares between test classes; only it closes the cluster. */
    static KafkaTestCluster startShared() throws Exception {
        return new KafkaTestCluster(startKit(), true);
    }

    private static KafkaClusterTestKit startKit() throws Exception {
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
                // The group offsets topic, made when the first scheduler group joins, has one
                // partition, not 50 (each of them three replicas to create and follow).
                .setConfigProp("offsets.topic.num.partitions", "1")
                // A new scheduler group (one per test topic) is formed at once, not after the 3 s the
                // broker waits by default for more members of an empty group.
                .setConfigProp("group.initial.rebalance.delay.ms", "0")
                // Few threads and a small cleaner buffer (128 MB by default, per broker, in this JVM's
                // heap): three brokers share two cores and one heap with the tests, and the compacted
                // topics here are tiny. As KafkaProcessCluster's nodes.
                .setConfigProp("num.network.threads", "2")
                .setConfigProp("num.io.threads", "2")
                .setConfigProp("background.threads", "2")
                .setConfigProp("num.replica.fetchers", "1")
                .setConfigProp("log.cleaner.threads", "1")
                .setConfigProp("log.cleaner.dedupe.buffer.size", Integer.toString(8 << 20))
                .setConfigProp("num.recovery.threads.per.data.dir", "1")
                .build();
        kit.format();
        kit.startup();
        kit.waitForReadyBrokers();
        return kit;
    }

    /**
     * A topic name no other test of this JVM is given: {@code purpose} and a number. On the shared
     * cluster it keeps a test from seeing another's records, its scheduler group (named after the
     * topic) and its retention; nodes create the topic themselves.
     */
    public static String newTopic(String purpose) {
        return purpose + "-" + TOPICS.incrementAndGet();
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
     * no kill -9). Its data stays; it does not come back in this kit. Refused on the shared cluster,
     * whose brokers the other tests of the run still use.
     */
    public void stopBroker(int id) {
        if (shared) {
            throw new IllegalStateException("the shared cluster's brokers serve every test of the run: "
                    + "a test that stops brokers starts a cluster of its own (KafkaTestCluster.start)");
        }
        kit.brokers().get(id).shutdown();
        kit.brokers().get(id).awaitShutdown();
    }

    public Set<Integer> brokerIds() {
        return kit.brokers().keySet();
    }

    /** Closes a cluster of the caller's own; refused on the shared one, which {@link SharedKafka} closes. */
    @Override
    public void close() throws Exception {
        if (shared) {
            throw new IllegalStateException("the shared cluster is closed by SharedKafka, not by a test");
        }
        kit.close();
    }

    /** Closes the shared cluster: for {@link SharedKafka}, when the last class using it ended. */
    void closeShared() throws Exception {
        kit.close();
    }
}
