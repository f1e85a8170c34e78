package io.trailproof.cluster;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The start-up rules for the topic: created when missing with the settings the design
 * needs; an existing topic that would break a promise is refused with a message naming the setting.
 *
 * <ul>
 *   <li>one partition: the global Merkle tree needs one total order;</li>
 *   <li>replication factor at least 3 and {@code min.insync.replicas} at least 2: an acknowledged
 *       write is on two brokers (a trial may allow less with {@code cluster.allow-unsafe-topic});</li>
 *   <li>{@code retention.bytes=-1}, {@code cleanup.policy=delete}: no record is ever compacted away or
 *       deleted for size;</li>
 *   <li>{@code retention.ms=-1} (a new node rebuilds from offset 0), or, with
 *       {@code cluster.topic-retention} set, exactly that retention: a node then joins from a peer's
 *       backup (src/site/cluster.md#topic-retention). A node creating such a topic sets
 *       {@code segment.ms} to {@link #SEGMENT_MS} so erased content leaves Kafka at most that much
 *       later than the retention says (src/site/erasure.md#cluster-mode);</li>
 *   <li>{@code message.timestamp.type=LogAppendTime}: {@code recorded_at} is the broker's time;</li>
 *   <li>{@code max.message.bytes} large enough for the largest request.</li>
 * </ul>
 */
public final class TopicGuard {

    private static final System.Logger LOG = System.getLogger(TopicGuard.class.getName());
    private static final long TIMEOUT_SECONDS = 30;

    private TopicGuard() {
    }

    /** The topic is unusable (or Kafka cannot be reached); the message says which setting and what to do. */
    public static final class TopicRefused extends Exception {
        public TopicRefused(String message) {
            super(message);
        }
    }

    /** The {@code segment.ms} a node sets on a topic with finite retention it creates: one day. */
    public static final long SEGMENT_MS = 86_400_000L;

    /** {@link #ensure(Admin, String, int, boolean, int, Duration)} for a topic of infinite retention. */
    public static List<String> ensure(Admin admin, String topic, int replicationFactor, boolean allowUnsafe,
                                      int maxRecordBytes) throws TopicRefused, InterruptedException {
        return ensure(admin, topic, replicationFactor, allowUnsafe, maxRecordBytes, null);
    }

    /**
     * Creates the topic when missing, then checks it. Returns the warnings an operator must see
     * (an unsafe topic allowed).
     *
     * @param retention {@code cluster.topic-retention}, or null for infinite retention
     */
    public static List<String> ensure(Admin admin, String topic, int replicationFactor, boolean allowUnsafe,
                                      int maxRecordBytes, Duration retention) throws TopicRefused, InterruptedException {
        try {
            TopicDescription d = describe(admin, topic);
            if (d == null) {
                int minIsr = Math.min(2, replicationFactor);
                Map<String, String> configs = new HashMap<>(Map.of(
                        "min.insync.replicas", Integer.toString(minIsr),
                        "retention.ms", retention == null ? "-1" : Long.toString(retention.toMillis()),
                        "retention.bytes", "-1",
                        "cleanup.policy", "delete",
                        "message.timestamp.type", "LogAppendTime",
                        "max.message.bytes", Integer.toString(maxRecordBytes)));
                if (retention != null) {
                    configs.put("segment.ms", Long.toString(SEGMENT_MS));
                }
                NewTopic t = new NewTopic(topic, 1, (short) replicationFactor).configs(configs);
                try {
                    admin.createTopics(List.of(t)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    LOG.log(System.Logger.Level.INFO, "created topic " + topic + " (1 partition, replication "
                            + replicationFactor + ", min.insync.replicas " + minIsr + ", retention "
                            + (retention == null ? "infinite" : retention + ", segment.ms " + SEGMENT_MS) + ")");
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;   // another node creating it at the same moment is fine; anything else is not
                    }
                }
                // A new topic's metadata reaches the broker answering the describe a moment after the
                // create returned: ask again for a while before calling it a problem of the cluster.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
                d = describe(admin, topic);
                while (d == null && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                    d = describe(admin, topic);
                }
                if (d == null) {
                    throw new TopicRefused("topic " + topic + " was created but cannot be described; check the Kafka cluster");
                }
            }
            Config config = describeConfig(admin, topic);
            return check(topic, d.partitions().size(), d.partitions().get(0).replicas().size(), config, allowUnsafe,
                    maxRecordBytes, retention);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new TopicRefused("cannot check topic " + topic + " on the Kafka cluster (cluster.bootstrap-servers): "
                    + cause);
        }
    }

    private static TopicDescription describe(Admin admin, String topic)
            throws ExecutionException, TimeoutException, InterruptedException {
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
    }

    /**
     * The topic's configuration, asked {@link #againWhileUnknown again while the topic is unknown}.
     */
    private static Config describeConfig(Admin admin, String topic)
            throws ExecutionException, TimeoutException, InterruptedException {
        return againWhileUnknown(() -> admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic)))
                .all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).values().iterator().next());
    }

    /** A question to the Kafka cluster about a topic. */
    @FunctionalInterface
    interface TopicQuestion<T> {
        T ask() throws ExecutionException, TimeoutException, InterruptedException;
    }

    /**
     * The answer to a question about a topic. A topic created a moment ago (by this node, or by
     * another starting at the same time) reaches the brokers one after another: the broker answering
     * may not know it yet although another one just described it, and says "unknown topic". So that
     * answer is asked again for a while before it is called a problem of the cluster (under load a
     * node would otherwise refuse to start).
     */
    static <T> T againWhileUnknown(TopicQuestion<T> question)
            throws ExecutionException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (true) {
            try {
                return question.ask();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** {@link #check(String, int, int, Config, boolean, int, Duration)} for a topic of infinite retention. */
    static List<String> check(String topic, int partitions, int replicas, Config config, boolean allowUnsafe,
                              int maxRecordBytes) throws TopicRefused {
        return check(topic, partitions, replicas, config, allowUnsafe, maxRecordBytes, null);
    }

    /** The rules, on what the cluster said about the topic; pure, so it is tested without Kafka. */
    static List<String> check(String topic, int partitions, int replicas, Config config, boolean allowUnsafe,
                              int maxRecordBytes, Duration wanted) throws TopicRefused {
        String where = "topic " + topic + " ";
        if (partitions != 1) {
            throw new TopicRefused(where + "has " + partitions + " partitions; trailproof needs exactly 1 (one total "
                    + "order for the Merkle tree). Use another cluster.topic, or recreate the topic with 1 partition");
        }
        long retention = number(config, "retention.ms", -1);
        long retentionBytes = number(config, "retention.bytes", -1);
        List<String> warnings = new ArrayList<>();
        if (retentionBytes != -1) {
            throw new TopicRefused(where + "has retention.bytes=" + retentionBytes + "; set it to -1: records must "
                    + "not be deleted for size (cluster.topic-retention sets a retention in time)");
        }
        if (wanted == null && retention != -1) {
            throw new TopicRefused(where + "has finite retention (retention.ms=" + retention + "); set it to -1 (a "
                    + "node rebuilds its log from offset 0), or set cluster.topic-retention to that retention on "
                    + "every node (nodes then join from a peer's backup)");
        }
        if (wanted != null && retention != wanted.toMillis()) {
            throw new TopicRefused(where + "has retention.ms=" + retention + " but cluster.topic-retention is " + wanted
                    + " (" + wanted.toMillis() + " ms); set the topic's retention.ms to " + wanted.toMillis()
                    + ", or cluster.topic-retention to the topic's retention, the same on every node");
        }
        if (wanted != null && number(config, "segment.ms", 604_800_000L) > SEGMENT_MS) {
            warnings.add(where + "has segment.ms=" + number(config, "segment.ms", 604_800_000L) + ": Kafka deletes "
                    + "records only with their closed segment, so erased content may stay in Kafka that long beyond "
                    + "cluster.topic-retention; set segment.ms=" + SEGMENT_MS + " (one day)");
        }
        String cleanup = text(config, "cleanup.policy", "delete");
        if (!cleanup.equals("delete")) {
            throw new TopicRefused(where + "has cleanup.policy=" + cleanup + "; set it to delete (compaction would drop writes)");
        }
        String timestamps = text(config, "message.timestamp.type", "CreateTime");
        if (!timestamps.equals("LogAppendTime")) {
            throw new TopicRefused(where + "has message.timestamp.type=" + timestamps + "; set it to LogAppendTime "
                    + "(recorded_at is the broker's time)");
        }
        long maxBytes = number(config, "max.message.bytes", 1048588);
        if (maxBytes < maxRecordBytes) {
            throw new TopicRefused(where + "has max.message.bytes=" + maxBytes + ", below the " + maxRecordBytes
                    + " bytes the largest request needs (limits.max-body-bytes); raise it");
        }
        long minIsr = number(config, "min.insync.replicas", 1);
        if (replicas < 3 || minIsr < 2) {
            String what = where + "has replication factor " + replicas + " and min.insync.replicas " + minIsr;
            if (!allowUnsafe) {
                throw new TopicRefused(what + "; trailproof needs at least 3 and 2, so that an acknowledged write "
                        + "survives the loss of a broker (cluster.replication-factor; cluster.allow-unsafe-topic=true "
                        + "accepts it for a trial)");
            }
            warnings.add(what + ": cluster.allow-unsafe-topic=true accepts it, and an acknowledged write may be LOST "
                    + "when one broker dies. Only for a trial.");
        }
        return warnings;
    }

    private static long number(Config config, String name, long absent) {
        ConfigEntry e = config.get(name);
        return e == null || e.value() == null ? absent : Long.parseLong(e.value());
    }

    private static String text(Config config, String name, String absent) {
        ConfigEntry e = config.get(name);
        return e == null || e.value() == null ? absent : e.value();
    }
}
