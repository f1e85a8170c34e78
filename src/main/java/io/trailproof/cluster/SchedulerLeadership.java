package io.trailproof.cluster;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Which node runs the scheduled work of a cluster (scheduled timestamps, witness requests): one at a time, chosen by
 * Kafka's consumer group protocol rather than a liveness protocol of our own. Every node joins group
 * {@code trailproof-<topic>-scheduler} on the one-partition coordination topic {@code <topic>-coord}
 * (created if missing; nothing is ever produced to it); the member assigned its partition 0 leads.
 * A node that dies loses the partition after Kafka's {@code session.timeout.ms}, and another member
 * is assigned it. During a rebalance two nodes may briefly both lead: harmless for timestamps (two
 * valid records, stored alike on every node) and for witnesses (a cosignature kept twice is kept once;
 * a witness answers the second node's request from the size it already holds).
 */
final class SchedulerLeadership implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SchedulerLeadership.class.getName());

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final Runnable lead;
    private final Runnable unlead;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean leading;   // written by the member thread only

    private SchedulerLeadership(KafkaConsumer<byte[], byte[]> consumer, String coordTopic, String nodeId, Runnable lead,
                                Runnable unlead) {
        this.consumer = consumer;
        this.partition = new TopicPartition(coordTopic, 0);
        this.lead = lead;
        this.unlead = unlead;
        this.thread = Thread.ofPlatform().daemon().name("trailproof-scheduler-group").unstarted(this::run);
        consumer.subscribe(List.of(coordTopic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                if (partitions.contains(partition)) {
                    stopLeading("its partition was revoked");
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                if (partitions.contains(partition)) {
                    stopLeading("it lost its membership");
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (partitions.contains(partition) && !leading) {
                    leading = true;
                    LOG.log(System.Logger.Level.INFO, "node " + nodeId + " runs the cluster's scheduled work");
                    lead.run();
                }
            }
        });
    }

    /** Ensures the coordination topic, then joins the group; {@code lead}/{@code unlead} run on the member's thread. */
    static SchedulerLeadership start(Admin admin, KafkaConsumer<byte[], byte[]> consumer, String topic, String nodeId,
                                     int replicationFactor, Runnable lead, Runnable unlead) throws InterruptedException {
        String coord = topic + "-coord";
        try {
            admin.createTopics(List.of(new NewTopic(coord, 1, (short) replicationFactor))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                LOG.log(System.Logger.Level.WARNING, "cannot create the coordination topic " + coord + " (" + e.getCause()
                        + "); the scheduler's group waits for it");
            }
        } catch (TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, "creating the coordination topic " + coord + " timed out; the "
                    + "scheduler's group waits for it");
        }
        SchedulerLeadership s = new SchedulerLeadership(consumer, coord, nodeId, lead, unlead);
        s.thread.start();
        return s;
    }

    private void run() {
        try {
            while (running) {
                consumer.poll(Duration.ofMillis(500));   // keeps the membership; nothing is ever produced here
            }
        } catch (WakeupException e) {
            // close()
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "the scheduler's group member stopped; this node no longer runs the "
                    + "cluster's scheduled work: " + t, t);
        } finally {
            stopLeading("the node is leaving the group");
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void stopLeading(String why) {
        if (leading) {
            leading = false;
            LOG.log(System.Logger.Level.INFO, "this node stops running the cluster's scheduled work: " + why);
            unlead.run();
        }
    }

    /** Whether this node runs the scheduled work now. */
    boolean leading() {
        return leading;
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(15_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
