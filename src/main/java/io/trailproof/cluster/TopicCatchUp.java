package io.trailproof.cluster;

import io.trailproof.config.Settings;
import io.trailproof.ledger.LedgerUnavailableException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waits until this node applied every record the topic held when asked (at most
 * {@code cluster.write-timeout}), so that what it resolves then (an erasure's selector, a retention
 * pass's events, src/site/erasure.md#cluster-mode) includes every write any node acknowledged before.
 */
final class TopicCatchUp {

    private final Admin admin;
    private final TopicPartition partition;
    private final Settings.Cluster settings;
    private final ApplyLoop loop;
    private final BooleanSupplier closed;

    TopicCatchUp(Admin admin, TopicPartition partition, Settings.Cluster settings, ApplyLoop loop,
                 BooleanSupplier closed) {
        this.admin = admin;
        this.partition = partition;
        this.settings = settings;
        this.loop = loop;
        this.closed = closed;
    }

    /** @throws LedgerUnavailableException when Kafka cannot be asked or this node does not get there in time */
    void await() throws IOException {
        long deadline = System.nanoTime() + settings.writeTimeout().toNanos();
        long end;
        try {
            end = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(settings.writeTimeout().toMillis(), TimeUnit.MILLISECONDS).offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while asking Kafka for the topic's end");
        } catch (ExecutionException | TimeoutException e) {
            throw new LedgerUnavailableException("cannot read the end of topic " + settings.topic() + ": " + e, e);
        }
        while (loop.position() < end - 1) {
            String failure = loop.failure();
            if (failure != null || closed.getAsBoolean()) {
                throw new LedgerUnavailableException(failure != null ? failure : "the service is shutting down", null);
            }
            if (System.nanoTime() > deadline) {
                throw new LedgerUnavailableException("this node applied topic " + settings.topic() + " up to offset "
                        + loop.position() + ", not yet to its end (" + (end - 1) + ") within cluster.write-timeout", null);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting to apply the topic");
            }
        }
    }
}
