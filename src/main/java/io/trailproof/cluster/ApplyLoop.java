package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerHealth;
import io.trailproof.ledger.LedgerUnavailableException;
import io.trailproof.ledger.ReplicaApplies;
import io.trailproof.ledger.ReplicaOutcome;
import io.trailproof.ledger.ReplicatedErasure;
import io.trailproof.ledger.ReplicatedWrite;
import java.io.IOException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.record.TimestampType;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The replica's one apply thread: consumes the partition in offset order and applies each record
 * to the local ledger ({@link ReplicaApplies}), a poll's worth at a time, then makes them durable
 * and only then completes the requests of this node waiting for them.
 *
 * <p><b>Never skips.</b> A record that cannot be applied (it cannot be decoded, has no broker time,
 * or storage fails) stops the loop for good: the node keeps serving reads at the size it reached,
 * {@code GET /health} and {@code GET /v1/cluster} say why, writes answer 503. Validation ran before
 * the record was produced, so this is a bug or damage, for a person to look at; skipping would give
 * this node another history than the others.
 */
final class ApplyLoop implements Runnable {

    private static final System.Logger LOG = System.getLogger(ApplyLoop.class.getName());

    private final Consumer<byte[], byte[]> consumer;
    private final ReplicaApplies replica;
    private final AnswerBuilders answers;
    private final Map<String, CompletableFuture<ReplicaOutcome>> waiters;
    private final LedgerHealth health;
    private final Ledger ledger;
    private final ReplicatedTimestamps timestamps;
    private final ReplicatedCosignatures cosignatures;
    /** Set once the node can finish erasures ({@link #completeErasuresWith}); an erasure record waits for it. */
    private final CompletableFuture<ReplicatedErasures> erasures = new CompletableFuture<>();
    private volatile boolean running = true;
    private volatile String failure;

    ApplyLoop(Consumer<byte[], byte[]> consumer, TopicPartition partition, ReplicaApplies replica, AnswerBuilders answers,
              Map<String, CompletableFuture<ReplicaOutcome>> waiters, LedgerHealth health, Ledger ledger,
              ReplicatedTimestamps timestamps, ReplicatedCosignatures cosignatures) {
        this.consumer = consumer;
        this.cosignatures = cosignatures;
        this.ledger = ledger;
        this.timestamps = timestamps;
        this.replica = replica;
        this.answers = answers;
        this.waiters = waiters;
        this.health = health;
        consumer.assign(List.of(partition));
        consumer.seek(partition, replica.position() + 1);
    }

    /**
     * How this node finishes an erasure above its log. The server sets it once the search index is
     * open and an erasure a crash interrupted is finished; until then an erasure record waits.
     */
    void completeErasuresWith(ReplicatedErasures erasures) {
        this.erasures.complete(erasures);
    }

    /** Why the loop stopped for good, or null while it runs. */
    String failure() {
        return failure;
    }

    /** Offset of the last record applied; -1 before the first. */
    long position() {
        return replica.position();
    }

    @Override
    public void run() {
        try {
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                if (records.isEmpty()) {
                    continue;
                }
                List<Applied> applied = new ArrayList<>(records.count());
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    applied.add(apply(r));
                }
                replica.sync();
                for (Applied a : applied) {
                    CompletableFuture<ReplicaOutcome> w = waiters.remove(a.request());
                    if (w != null) {
                        w.complete(a.outcome());
                    }
                }
            }
        } catch (WakeupException e) {
            // close() woke the consumer: the loop ends
        } catch (Throwable t) {
            stop(t);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** A record applied, not yet durable, and the request (of whichever node) that produced it. */
    private record Applied(String request, ReplicaOutcome outcome) {
    }

    private Applied apply(ConsumerRecord<byte[], byte[]> r) throws Exception {
        if (r.timestampType() != TimestampType.LOG_APPEND_TIME) {
            throw new IllegalStateException("record at offset " + r.offset() + " carries " + r.timestampType()
                    + ", not the broker's LogAppendTime (message.timestamp.type of the topic)");
        }
        WriteRecord w;
        try {
            JsonNode parsed = WriteRecord.parse(r.value() == null ? new byte[0] : r.value());
            if (TimestampWrite.is(parsed)) {
                return applyTimestamp(r, TimestampWrite.decode(parsed));
            }
            if (CosignatureWrite.is(parsed)) {
                return applyCosignature(r, CosignatureWrite.decode(parsed));
            }
            if (ErasureWrite.is(parsed)) {
                return applyErasure(r, ErasureWrite.decode(parsed));
            }
            w = WriteRecord.decode(parsed);
        } catch (IOException e) {
            throw new IllegalStateException("record at offset " + r.offset() + " cannot be applied: " + e.getMessage(), e);
        }
        ReplicaOutcome outcome = replica.apply(new ReplicatedWrite(r.offset(), r.timestamp(), idBits(r), w.events(),
                w.key(), w.contentDigest(), w.key() == null ? null : answers.builder(w.answer()), w.marks(),
                w.marks().isEmpty() ? null : answers.builder(w.answer())));
        return new Applied(w.requestId(), outcome);
    }

    /**
     * A timestamp record: its root must be this node's root at its size (every node holds the same
     * events at every size; anything else is damage, and stops the loop). Stored in the timestamp
     * store <em>before</em> the position frame (an empty group), idempotently, so a crash between the
     * two re-applies it harmlessly.
     */
    private Applied applyTimestamp(ConsumerRecord<byte[], byte[]> r, TimestampWrite t) throws Exception {
        checkRoot(r, "timestamp", t.nodeId(), t.record().treeSize(), t.record().merkleRootBytes());
        timestamps.appendOnce(t.record());
        return advance(r, t.requestId());
    }

    /**
     * A witness cosignature (of the node running the cluster's scheduled work): the checkpoint it
     * cosigned must have this node's root at its size (else damage, and the loop stops); the
     * cosignature is kept with this node's checkpoint of that size <em>before</em> the position frame,
     * idempotently (a cosignature by the same key replaces the one kept), so a crash between the two
     * re-applies it harmlessly.
     */
    private Applied applyCosignature(ConsumerRecord<byte[], byte[]> r, CosignatureWrite c) throws Exception {
        checkRoot(r, "cosignature", c.nodeId(), c.checkpoint().size(), c.checkpoint().root());
        try {
            cosignatures.adopt(c.checkpoint(), c.cosignature());
        } catch (IllegalStateException e) {
            throw new IllegalStateException("cosignature record at offset " + r.offset() + " (node " + c.nodeId() + "): "
                    + e.getMessage(), e);
        }
        return advance(r, c.requestId());
    }

    /**
     * An erasure (src/site/erasure.md#cluster-mode): recorded and applied to this node's log at this
     * record's position, then removed from the search index; only then is the next record applied.
     * Waits until the node can finish erasures ({@link #completeErasuresWith}).
     * Every node does the same at the same offset, so their logs stay byte for byte alike.
     */
    private Applied applyErasure(ConsumerRecord<byte[], byte[]> r, ErasureWrite e) throws Exception {
        // Before anything is written: an erasure a crash interrupted is finished (and its marker
        // cleared) before the node can finish erasures, and this one must not write its marker first.
        ReplicatedErasures finish = finisher();
        ReplicaOutcome.Erased outcome = replica.applyErasure(new ReplicatedErasure(r.offset(), r.timestamp(), idBits(r),
                e.order()));
        if (outcome.outcome() != null && outcome.outcome().erasure() != null) {
            finish.complete(outcome.outcome().erased());
        }
        return new Applied(e.requestId(), outcome);
    }

    private ReplicatedErasures finisher() throws InterruptedException {
        while (true) {
            try {
                return erasures.get(500, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!running) {
                    throw new WakeupException();   // closing before the node could finish erasures
                }
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    /** Every node holds the same events at every size: a record naming another root there is damage. */
    private void checkRoot(ConsumerRecord<byte[], byte[]> r, String kind, String node, long size, byte[] root)
            throws IOException {
        replica.sync();   // the events of this poll before the record: the root at its size must be readable
        if (size > ledger.size()) {
            throw new IllegalStateException(kind + " record at offset " + r.offset() + " stamps tree size " + size
                    + " but this node holds only " + ledger.size() + " events before it: damage");
        }
        byte[] own = ledger.root(size);
        if (!MessageDigest.isEqual(own, root)) {
            throw new IllegalStateException(kind + " record at offset " + r.offset() + " (node " + node
                    + ") stamps root " + HexFormat.of().formatHex(root) + " at tree size " + size
                    + ", but this node's root there is " + HexFormat.of().formatHex(own)
                    + ": the nodes' logs differ (damage)");
        }
    }

    /** The record's position frame (an empty group), so a restart resumes after it. */
    private Applied advance(ConsumerRecord<byte[], byte[]> r, String request) throws Exception {
        ReplicaOutcome outcome = replica.apply(new ReplicatedWrite(r.offset(), r.timestamp(), idBits(r), List.of(),
                null, null, null, List.of(), null));
        return new Applied(request, outcome);
    }

    /** The bits of the events' ids: from a SHA-256 of the record (offset, time, value). */
    static int idBits(ConsumerRecord<byte[], byte[]> r) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(ByteBuffer.allocate(16).putLong(r.offset()).putLong(r.timestamp()).array());
            if (r.value() != null) {
                sha.update(r.value());
            }
            return ByteBuffer.wrap(sha.digest()).getInt();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private void stop(Throwable t) {
        String why = "the cluster apply loop stopped after offset " + replica.position() + " and applies nothing more "
                + "until a person looks into it and restarts the node: " + t;
        // /health says so before any write is refused for it: whoever got the 503 finds the node degraded.
        health.report(why);
        failure = why;
        LOG.log(System.Logger.Level.ERROR, why, t);
        LedgerUnavailableException e = new LedgerUnavailableException(why, t);
        for (String key : List.copyOf(waiters.keySet())) {
            CompletableFuture<ReplicaOutcome> w = waiters.remove(key);
            if (w != null) {
                w.completeExceptionally(e);
            }
        }
    }

    /** Ends the loop (the consumer is woken; the thread closes it). */
    void close() {
        running = false;
        consumer.wakeup();
    }
}
