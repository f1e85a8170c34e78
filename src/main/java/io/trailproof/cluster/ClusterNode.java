package io.trailproof.cluster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.config.Settings;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.redaction.Redactor;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.ErasureOrder;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerErasures;
import io.trailproof.ledger.LedgerUnavailableException;
import io.trailproof.ledger.ReplicaOutcome;
import io.trailproof.ledger.Submission;
import java.io.IOException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * This node's part in a cluster: the one-partition topic is the replicated
 * source of order, and this node is a deterministic replica of it.
 *
 * <p><b>Writes</b> ({@link #submit}): the validated, redacted events of one request go into one record,
 * produced with {@code acks=all} and idempotence; the answer comes once Kafka acknowledged the record
 * <em>and</em> this node's {@link ApplyLoop} applied it and made it durable, so a 201 means: on at least
 * {@code min.insync.replicas} brokers, and readable on the node that answered. Without both within
 * {@code cluster.write-timeout} the outcome is unknown ({@link OutcomeUnknownException}).
 *
 * <p><b>Order of work</b>: the producer's sends run on one thread (a send may block while Kafka is
 * unreachable; no HTTP thread waits for that), the applies on another.
 */
public final class ClusterNode implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ClusterNode.class.getName());
    private static final HexFormat HEX = HexFormat.of();

    private final Settings.Cluster settings;
    private final Ledger ledger;
    private final Redactor redactor;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ApplyLoop loop;
    private final Thread loopThread;
    private final ExecutorService sender;
    private final Map<String, CompletableFuture<ReplicaOutcome>> waiters = new ConcurrentHashMap<>();
    private final TopicPartition partition;
    private final List<String> warnings;
    private volatile boolean closed;
    private final TopicCatchUp catchUp;
    private volatile SchedulerLeadership leadership;
    /** The scheduled work of {@link #leadScheduledWork}: lead and unlead of each; guards {@link #scheduledLeading}. */
    private final List<Runnable[]> scheduled = new ArrayList<>();
    private boolean scheduledLeading;

    private ClusterNode(Settings.Cluster settings, Ledger ledger, Redactor redactor, Admin admin,
                        KafkaProducer<byte[], byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
                        AnswerBuilders answers, List<String> warnings, ReplicatedTimestamps timestamps,
                        ReplicatedCosignatures cosignatures) {
        this.settings = settings;
        this.ledger = ledger;
        this.redactor = redactor;
        this.admin = admin;
        this.producer = producer;
        this.warnings = List.copyOf(warnings);
        this.partition = new TopicPartition(settings.topic(), 0);
        this.loop = new ApplyLoop(consumer, partition, ledger.replicaApplies().orElseThrow(
                () -> new IllegalArgumentException("cluster mode needs a replica ledger (Ledger.openReplica)")),
                answers, waiters, ledger.health(), ledger, timestamps, cosignatures);
        this.catchUp = new TopicCatchUp(admin, partition, settings, loop, () -> closed);
        this.sender = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name("trailproof-produce").unstarted(r));
        this.loopThread = Thread.ofPlatform().daemon().name("trailproof-apply").unstarted(loop);
    }

    /**
     * Checks (or creates) the topic and this node's data against it, then starts applying.
     *
     * @param maxRecordBytes the largest record a request can make (the topic must take it)
     * @param timestamps where the timestamp records of the topic are stored (this node's timestamp store)
     * @param cosignatures where the witness cosignatures of the topic are kept (this node's checkpoints)
     * @throws TopicGuard.TopicRefused when the topic or the local data cannot be used; the message says why
     */
    public static ClusterNode start(Settings.Cluster settings, Ledger ledger, Redactor redactor, AnswerBuilders answers,
                                    int maxRecordBytes, ReplicatedTimestamps timestamps,
                                    ReplicatedCosignatures cosignatures) throws TopicGuard.TopicRefused, InterruptedException {
        Admin admin = Admin.create(props(settings, Map.of(
                AdminClientConfig.CLIENT_ID_CONFIG, "trailproof-admin-" + settings.nodeId())));
        KafkaProducer<byte[], byte[]> producer = null;
        try {
            List<String> warnings = TopicGuard.ensure(admin, settings.topic(), settings.replicationFactor(),
                    settings.allowUnsafeTopic(), maxRecordBytes, settings.topicRetention());
            warnings.forEach(w -> LOG.log(System.Logger.Level.WARNING, w));
            checkLocalData(admin, settings.topic(), ledger);
            long timeout = settings.writeTimeout().toMillis();
            producer = new KafkaProducer<>(props(settings, Map.of(
                    ProducerConfig.CLIENT_ID_CONFIG, "trailproof-" + settings.nodeId(),
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                    ProducerConfig.LINGER_MS_CONFIG, "0",
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(Math.min(timeout, 30_000)),
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeout),
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeout),
                    ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(maxRecordBytes))),
                    new ByteArraySerializer(), new ByteArraySerializer());
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props(settings, Map.of(
                    ConsumerConfig.CLIENT_ID_CONFIG, "trailproof-apply-" + settings.nodeId(),
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(Math.max(1 << 20, maxRecordBytes)))),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer());
            ClusterNode node;
            try {
                node = new ClusterNode(settings, ledger, redactor, admin, producer, consumer, answers, warnings, timestamps,
                        cosignatures);
            } catch (RuntimeException e) {
                consumer.close(Duration.ZERO);   // the node would have closed it; it never came to be
                throw e;
            }
            node.loopThread.start();
            LOG.log(System.Logger.Level.INFO, "cluster node " + settings.nodeId() + " applies topic " + settings.topic()
                    + " from offset " + (node.loop.position() + 1) + " (" + ledger.size() + " events here)");
            return node;
        } catch (TopicGuard.TopicRefused | InterruptedException | RuntimeException e) {
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    /**
     * A data directory with events that did not come from the topic (an embedded log), or that
     * applied more of it than the topic holds (another or a recreated topic), would give this node
     * another history than the others: refused.
     */
    private static void checkLocalData(Admin admin, String topic, Ledger ledger)
            throws TopicGuard.TopicRefused, InterruptedException {
        long applied = ledger.replicaPosition().map(p -> p.offset()).orElse(-1L);
        if (applied < 0 && ledger.size() > 0) {
            throw new TopicGuard.TopicRefused("data.dir holds " + ledger.size() + " events that did not come from topic "
                    + topic + " (an embedded log?); a cluster node starts from an empty data.dir and rebuilds from the topic");
        }
        TopicPartition p = new TopicPartition(topic, 0);
        try {
            long end = TopicGuard.againWhileUnknown(() -> admin.listOffsets(Map.of(p, OffsetSpec.latest())).partitionResult(p)
                    .get(30, TimeUnit.SECONDS).offset());
            long start = TopicGuard.againWhileUnknown(() -> admin.listOffsets(Map.of(p, OffsetSpec.earliest()))
                    .partitionResult(p).get(30, TimeUnit.SECONDS).offset());
            if (applied + 1 > end) {
                throw new TopicGuard.TopicRefused("this node applied topic " + topic + " up to offset " + applied
                        + " but the topic ends at " + end + ": it is another topic, or it was recreated. Start this node "
                        + "on an empty data.dir, or point cluster.topic at the topic it applied");
            }
            if (applied + 1 < start) {
                throw new TopicGuard.TopicRefused("topic " + topic + " starts at offset " + start + " (retention deleted "
                        + "the records before it) but this node needs offset " + (applied + 1) + (applied < 0
                        ? " (its data.dir holds no event: delete it)" : "") + ". Restore a peer's backup into an empty "
                        + "data.dir first (trailproof backup on a running node, then trailproof restore FILE.tar "
                        + "--data-dir DIR); the node then consumes the topic from the offset the backup covers "
                        + "(src/site/cluster.md#joining-from-a-backup)");
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new TopicGuard.TopicRefused("cannot read the offsets of topic " + topic + ": " + e);
        }
    }

    private static Properties props(Settings.Cluster settings, Map<String, String> own) {
        Properties p = new Properties();
        p.putAll(settings.kafkaProperties());   // TLS, SASL, ...: the operator's, under ours
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        p.putAll(own);
        return p;
    }

    /**
     * Produces one record holding {@code events} (validated; redacted here, before producing, so
     * that applying is deterministic) and completes once this node applied it: with
     * {@link ReplicaOutcome.Stored} (each event's outcome, as the embedded mode gives them),
     * {@link ReplicaOutcome.Replayed} or {@link ReplicaOutcome.Conflicting} when the key was used
     * first (by any node). Completes exceptionally with {@link OutcomeUnknownException} after
     * {@code cluster.write-timeout}, {@link WriteTooLargeException} when Kafka refused the record for
     * its size (nothing stored), or {@link LedgerUnavailableException} when this node cannot
     * write at all (its apply loop stopped; shutting down).
     *
     * @param claim the idempotency key's local claim, or null; the caller releases it
     */
    public CompletableFuture<ReplicaOutcome> submit(List<ObjectNode> events, DedupeTable.Claim claim, AnswerSpec answer) {
        String failure = loop.failure();
        if (failure != null || closed) {
            return CompletableFuture.failedFuture(new LedgerUnavailableException(
                    failure != null ? failure : "the service is shutting down", null));
        }
        String request = UUID.randomUUID().toString();
        return produce(request, new WriteRecord(settings.nodeId(), request, Submission.of(events, redactor),
                claim == null ? null : claim.key(), claim == null ? null : claim.contentDigest(), answer).encode());
    }

    /**
     * {@link #submit} for events the service composed itself (src/site/gates.md): stored exactly as
     * given, without redaction (the caller redacted the client text they carry).
     */
    public CompletableFuture<ReplicaOutcome> submitComposed(List<ObjectNode> events, DedupeTable.Claim claim,
                                                            AnswerSpec answer) {
        String failure = loop.failure();
        if (failure != null || closed) {
            return CompletableFuture.failedFuture(new LedgerUnavailableException(
                    failure != null ? failure : "the service is shutting down", null));
        }
        String request = UUID.randomUUID().toString();
        return produce(request, new WriteRecord(settings.nodeId(), request, Submission.of(events, null),
                claim == null ? null : claim.key(), claim == null ? null : claim.contentDigest(), answer).encode());
    }

    /**
     * {@link #submit} for the spans of one OTLP export ({@code POST /v1/traces}): {@code marks} holds
     * each event's span mark (distinct). Every replica leaves out the events whose mark it has
     * recorded and records the marks of the others, so the outcome ({@link ReplicaOutcome.Stored})
     * has a null for each span already stored.
     */
    public CompletableFuture<ReplicaOutcome> submitSpans(List<ObjectNode> events, List<DedupeKey> marks) {
        String failure = loop.failure();
        if (failure != null || closed) {
            return CompletableFuture.failedFuture(new LedgerUnavailableException(
                    failure != null ? failure : "the service is shutting down", null));
        }
        String request = UUID.randomUUID().toString();
        return produce(request, new WriteRecord(settings.nodeId(), request, Submission.of(events, redactor), null, null,
                new AnswerSpec.Spans(), marks).encode());
    }

    /**
     * Produces one timestamp record (stamped by this node over its root at its applied size) and
     * returns once this node applied it, so it is in this node's timestamp store, durably.
     *
     * @throws LedgerUnavailableException when the outcome is unknown after {@code cluster.write-timeout}
     *     (the record may still be stored on every node later; a retry stamps a second, also valid,
     *     record), or this node cannot write
     */
    public void publishTimestamp(TimestampRecord record) throws IOException {
        String request = UUID.randomUUID().toString();
        publishAndApply(request, new TimestampWrite(settings.nodeId(), request, record).encode(), "this timestamp",
                ". It may still be stored on every node; POST /v1/timestamp again if GET /v1/timestamps lacks it");
    }

    /**
     * Produces one witness cosignature of {@code checkpoint} (verified by this node with the witness's
     * key) and returns once this node applied it, so every node keeps it with its own checkpoint of that
     * size and serves it.
     *
     * @throws LedgerUnavailableException when the outcome is unknown after {@code cluster.write-timeout}
     *     (the witness client asks again: the same cosignature applied twice is kept once), or this node
     *     cannot write
     */
    public void publishCosignature(TlogCheckpoint checkpoint,
                                   NoteSignature cosignature) throws IOException {
        String request = UUID.randomUUID().toString();
        publishAndApply(request, new CosignatureWrite(settings.nodeId(), request, checkpoint, cosignature).encode(),
                "this cosignature", "");
    }

    /**
     * Produces one erasure record (src/site/erasure.md#cluster-mode) and returns once this node
     * applied it: the erasure event recorded, this node's log rewritten and its search index purged
     * ({@link #completeErasuresWith}). Every node applies it at the same position. Waits up to
     * {@link #ERASURE_TIMEOUT} or {@code cluster.write-timeout}, whichever is longer: rewriting a
     * large log takes time.
     *
     * @throws LedgerErasures.ErasureTooLargeException when the erasure event would exceed an event's
     *     size (refused alike on every node; nothing erased)
     * @throws LedgerUnavailableException when the outcome is unknown (the erasure may still be applied:
     *     {@code GET /v1/admin/erasures} shows it) or this node cannot write
     */
    public LedgerErasures.ErasureOutcome publishErasure(ErasureOrder order) throws IOException {
        String request = UUID.randomUUID().toString();
        ReplicaOutcome outcome = publishAndApply(request, new ErasureWrite(settings.nodeId(), request, order).encode(),
                "this erasure", ". It may still be applied on every node; GET /v1/admin/erasures lists it once it is",
                settings.writeTimeout().compareTo(ERASURE_TIMEOUT) > 0 ? settings.writeTimeout() : ERASURE_TIMEOUT);
        ReplicaOutcome.Erased erased = (ReplicaOutcome.Erased) outcome;
        if (erased.refused() != null) {
            throw new LedgerErasures.ErasureTooLargeException(erased.refused());
        }
        return erased.outcome();
    }

    /**
     * Waits until this node applied every record the topic held when asked (at most
     * {@code cluster.write-timeout}): what it resolves then (an erasure's selector, a retention pass's
     * events) includes every write acknowledged by any node before.
     *
     * @throws LedgerUnavailableException when Kafka cannot be asked or this node does not get there in time
     */
    public void awaitTopicEnd() throws IOException {
        catchUp.await();
    }

    /** The least time an erasure is waited for before its outcome is called unknown. */
    public static final Duration ERASURE_TIMEOUT = Duration.ofMinutes(10);

    /**
     * How this node finishes an erasure record above its log (the search index): set by the server
     * once an erasure a crash interrupted is finished; the apply loop holds erasure records until then.
     */
    public void completeErasuresWith(ReplicatedErasures erasures) {
        loop.completeErasuresWith(erasures);
    }

    private ReplicaOutcome publishAndApply(String request, byte[] value, String what, String advice)
            throws IOException {
        return publishAndApply(request, value, what, advice, settings.writeTimeout());
    }

    private ReplicaOutcome publishAndApply(String request, byte[] value, String what, String advice, Duration timeout)
            throws IOException {
        String failure = loop.failure();
        if (failure != null || closed) {
            throw new LedgerUnavailableException(failure != null ? failure : "the service is shutting down", null);
        }
        try {
            return produce(request, value, timeout).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LedgerUnavailableException("interrupted while " + what + " was produced", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof LedgerUnavailableException u) {
                throw u;
            }
            if (cause instanceof WriteTooLargeException t) {
                throw new LedgerErasures.ErasureTooLargeException(t.getMessage());   // known: nothing was stored
            }
            throw new LedgerUnavailableException("the outcome of " + what + " is unknown: " + cause.getMessage() + advice,
                    cause);
        }
    }

    private CompletableFuture<ReplicaOutcome> produce(String request, byte[] value) {
        return produce(request, value, settings.writeTimeout());
    }

    private CompletableFuture<ReplicaOutcome> produce(String request, byte[] value, Duration wait) {
        CompletableFuture<ReplicaOutcome> done = new CompletableFuture<>();
        waiters.put(request, done);
        long timeout = wait.toMillis();
        CompletableFuture.delayedExecutor(timeout, TimeUnit.MILLISECONDS).execute(() -> unknown(request,
                "neither a confirmation from Kafka and the local apply came within " + wait + " (cluster.write-timeout"
                        + (wait.equals(settings.writeTimeout()) ? "" : ", or longer for an erasure") + ")", null));
        sender.execute(() -> {
            try {
                producer.send(new ProducerRecord<>(settings.topic(), 0, null, value), (metadata, error) -> {
                    if (error instanceof RecordTooLargeException) {
                        // refused before it was stored (by the producer, or by the broker): the outcome is known
                        CompletableFuture<ReplicaOutcome> w = waiters.remove(request);
                        if (w != null) {
                            w.completeExceptionally(new WriteTooLargeException("the write makes a record of "
                                    + value.length + " bytes, more than the topic takes (" + error.getMessage()
                                    + "); nothing was stored", error));
                        }
                    } else if (error != null) {
                        unknown(request, "Kafka did not confirm the write: " + error.getMessage(), error);
                    }
                });
            } catch (RuntimeException e) {
                unknown(request, "the write could not be handed to Kafka: " + e.getMessage(), e);
            }
        });
        return done;
    }

    private void unknown(String request, String why, Throwable cause) {
        CompletableFuture<ReplicaOutcome> w = waiters.remove(request);
        if (w != null) {
            w.completeExceptionally(new OutcomeUnknownException(why, cause));
        }
    }

    /**
     * What {@code GET /v1/cluster} answers for this node.
     *
     * @param scheduler whether this node runs the cluster's scheduled work now (see {@link #leadScheduledWork})
     */
    public record Status(String nodeId, String topic, long appliedSize, String root, long appliedOffset,
                         long topicEndOffset, String topicError, String applyLoopFailure, List<String> warnings,
                         boolean scheduler) {
    }

    /** This node's state; asks Kafka for the topic's end offset (at most {@code waitMillis}). */
    public Status status(long waitMillis) {
        long size = ledger.size();
        String root = HEX.formatHex(ledger.root(size));
        long end = -1;
        String error = null;
        try {
            end = admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(waitMillis, TimeUnit.MILLISECONDS).offset();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "interrupted";
        } catch (Exception e) {
            error = "cannot reach Kafka: " + e;
        }
        SchedulerLeadership l = leadership;
        return new Status(settings.nodeId(), settings.topic(), size, root, loop.position(), end, error, loop.failure(),
                warnings, l != null && l.leading());
    }

    public Settings.Cluster settings() {
        return settings;
    }

    /**
     * Joins the group that picks the one node running the cluster's scheduled work (see
     * {@link SchedulerLeadership}): {@code lead} runs when this node is chosen, {@code unlead} when it
     * is not any more, and at {@link #close}. Both run on the member's thread and must not block long.
     * Called again, it adds work to the same membership: a node chosen already starts it at once.
     */
    public void leadScheduledWork(Runnable lead, Runnable unlead) throws InterruptedException {
        boolean join;
        synchronized (scheduled) {
            scheduled.add(new Runnable[] {lead, unlead});
            join = scheduled.size() == 1;
            if (!join && scheduledLeading) {
                lead.run();
            }
        }
        if (!join) {
            return;
        }
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props(settings, Map.of(
                ConsumerConfig.CLIENT_ID_CONFIG, "trailproof-scheduler-" + settings.nodeId(),
                ConsumerConfig.GROUP_ID_CONFIG, "trailproof-" + settings.topic() + "-scheduler",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        leadership = SchedulerLeadership.start(admin, consumer, settings.topic(), settings.nodeId(),
                settings.replicationFactor(), () -> runScheduled(true), () -> runScheduled(false));
    }

    private void runScheduled(boolean lead) {
        synchronized (scheduled) {
            scheduledLeading = lead;
            for (Runnable[] work : scheduled) {
                work[lead ? 0 : 1].run();
            }
        }
    }

    /** Stops applying and producing; requests still waiting get 503. The caller closes the ledger after. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        SchedulerLeadership l = leadership;
        if (l != null) {
            l.close();
        }
        loop.close();
        try {
            loopThread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sender.shutdown();
        producer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
        LedgerUnavailableException e = new LedgerUnavailableException("the service is shutting down", null);
        for (String key : List.copyOf(waiters.keySet())) {
            CompletableFuture<ReplicaOutcome> w = waiters.remove(key);
            if (w != null) {
                w.completeExceptionally(e);
            }
        }
    }
}
