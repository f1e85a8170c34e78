package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.HeldWork;
import io.trailproof.background.Pacer;
import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEngine;
import io.trailproof.core.policy.PolicyReport;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.ledger.LedgerViews.InclusionProof;
import io.trailproof.ledger.LedgerViews.Stats;
import io.trailproof.store.AcknowledgedDataLostException;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.EventLog;
import io.trailproof.store.ForceObserver;
import io.trailproof.store.MerkleNodeStore;
import io.trailproof.store.SegmentIo;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The ledger: sequences events into per-agent chains and the one log, keeps the Merkle tree over the
 * log, and answers every question that is computed from the log (src/site/events.md, src/site/concepts.md#the-merkle-tree, src/site/storage.md).
 *
 * <p><b>Durability:</b> {@link #append} returns only after every event it stored is forced to disk
 * (group commit: concurrent appends share one force). Reads see the log up to its durable end, so a
 * root or proof that was served can always be reproduced after a crash.
 *
 * <p><b>Readers</b> see one size ({@link #size()}): durable, and in the tree and the agents' state
 * ({@link Sequencer}); no answer asks the tree for a size it does not have.
 *
 * <p><b>Derived state</b> (chain heads, event positions per agent, Merkle node hashes) is
 * snapshotted every {@code snapshotIntervalEvents} events and at {@link #close}, at the cost of
 * what changed ({@link HeadSnapshotWriter}); on open it is caught up from the log, so deleting it loses
 * nothing. A log that lost events a snapshot covers stops the start ({@link Recovery}).
 *
 * <p>If storage or the sequencer fails while writing, the ledger refuses further writes
 * ({@link LedgerUnavailableException}) until it is restarted, and {@link #health()} says why; reads
 * keep working.
 *
 * <p>This class is the facade; the work is done by {@link Sequencer} and {@link LedgerWrites} (writes), {@link Recovery} (open), {@link HeadSnapshotWriter}, {@link LedgerQueries} (reads) and
 * {@link ChainAudit} (verification). It hands out the parts with callers of their own: the dedupe
 * lookups ({@link #dedupe()}), the erasures ({@link #erasures()}) and the log's files for a backup
 * ({@link #logFiles()}).
 */
public final class Ledger implements Closeable {

    private final EventLog log;
    private final MerkleNodeStore tree;
    private final LedgerHealth health;
    private final Sequencer sequencer;
    private final SingleAppends singles;
    private final LedgerWrites writes;
    private final HeadSnapshotWriter headSnapshots;
    private final ChainAudit audit;
    private final LedgerQueries queries;
    /** Told after {@link #size()} may have grown (see {@link #onSizeAdvanced}). */
    private final SizeListeners sizeListeners = new SizeListeners();
    private final DedupeTable dedupe;
    private final DedupeClaims dedupeClaims;
    /** The replica's write side in cluster mode; null in the embedded mode. */
    private final ReplicaApplies replica;
    /** The last replica position found in the log at open (cluster mode), or null. */
    private final ReplicaPosition openedAt;
    private final LedgerErasures erasures;
    /** Online backups and log rewrites exclude each other. */
    private final LogFileHolds fileHolds = new LogFileHolds();
    private final LogFiles logFiles;
    private final AgentTable agents;

    /** Built by {@link LedgerOpening} once the log is recovered. */
    Ledger(Path dataDir, EventLog log, Recovery.Recovered r, LedgerHealth health, Clock clock,
                   RandomGenerator random, LedgerOptions options, UnaryOperator<TreeAppends> treeSeam, DedupeTable dedupe,
                   LogTime logTime, ReplicaPosition openedAt) throws IOException {
        this.openedAt = openedAt;
        this.log = log;
        this.dedupe = dedupe;
        this.dedupeClaims = new DedupeClaims(dedupe, log);
        this.tree = r.tree();
        this.agents = r.agents();
        this.health = health;
        this.sequencer = new Sequencer(log, treeSeam.apply(tree::append), r.agents(), new EventIds(random), clock, health,
                r.lastRecordedAt(), r.lastHash(), log.size());
        this.headSnapshots = new HeadSnapshotWriter(dataDir, log, tree, sequencer, r.agents(), options.snapshotIntervalEvents(),
                r.snapshotSize(), r.journalBytes());
        LongConsumer afterDurable = end -> {
            sizeListeners.advanced();
            headSnapshots.maybeSnapshot(end);
        };
        this.singles = new SingleAppends(sequencer, log, health, options.maxQueuedEvents(), afterDurable, dedupe);
        BatchAppends batches = new BatchAppends(sequencer, log, dedupe, options.redactor(), afterDurable);
        this.erasures = new LedgerErasures(dataDir, log, sequencer, dedupe,
                ErasureRegistry.load(log, r.agents(), log.size()), afterDurable, r.agents(), fileHolds, logTime != null);
        this.replica = logTime == null ? null : new ReplicaApplies(sequencer, log, dedupe, logTime,
                openedAt == null ? -1 : openedAt.offset(), afterDurable, erasures);
        this.writes = new LedgerWrites(batches, singles, options.redactor(), replica != null);
        erasures.completeAtOpen();
        this.audit = new ChainAudit(log, tree, r.agents(), sequencer::readableSize, clock, health, erasures.registry());
        this.logFiles = new LogFiles(log, fileHolds, sequencer::readableSize);
        this.queries = new LedgerQueries(log, tree, r.agents(), sequencer::readableSize, clock, audit);
    }

    /**
     * Opens the ledger in {@code dataDir}: checks every log frame, cuts a torn tail, checks that the
     * log still holds every event the snapshot says was acknowledged, and brings the chain heads
     * and the tree up to the end of the log.
     *
     * @throws AcknowledgedDataLostException when acknowledged events are missing
     *     and {@link LedgerOptions#acceptTruncation()} is false
     * @throws CorruptLogException when stored frames fail their check (nothing is silently dropped)
     */
    public static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random) throws IOException {
        return open(dataDir, options, clock, random, UnaryOperator.identity());
    }

    /**
     * As {@link #open(Path, LedgerOptions, Clock, RandomGenerator)}, with the work the open leaves to
     * after it (the tree check, the agents' positions, the sealed segments' idempotency keys; see
     * {@link #loading()}) handed to {@code afterStart}, which may hold it until the service listens
     * ({@link HeldWork}). Until it has run, {@link #loading()} lists it and its readers wait.
     */
    public static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random,
                              Executor afterStart) throws IOException {
        return LedgerOpening.open(dataDir, options, clock, random, UnaryOperator.identity(), false, SegmentIo.FILES,
                afterStart);
    }

    /** As {@link #open(Path, LedgerOptions, Clock, RandomGenerator)}, with the sequencer's tree appends wrapped (tests). */
    static Ledger open(Path dataDir, LedgerOptions options, Clock clock, RandomGenerator random,
                       UnaryOperator<TreeAppends> treeSeam) throws IOException {
        return LedgerOpening.open(dataDir, options, clock, random, treeSeam, false);
    }

    /**
     * Opens the ledger of a replica: as {@link #open(Path, LedgerOptions, Clock,
     * RandomGenerator)}, but its only writer is {@link #replicaApplies()}, which takes ids, times
     * and dedupe decisions from the replicated records; {@link #append} and the other local writes
     * refuse ({@link LedgerUnavailableException}), so nothing this node's clock or randomness made
     * can enter its log. Redaction is the producing node's business (before the record is produced):
     * {@code options.redactor()} is not applied here.
     */
    public static Ledger openReplica(Path dataDir, LedgerOptions options, Clock clock) throws IOException {
        return LedgerOpening.open(dataDir, options, clock, RandomGenerator.getDefault(),
                UnaryOperator.identity(), true);
    }

    /** As {@link #openReplica(Path, LedgerOptions, Clock)}, with the work left to after the open handed to {@code afterStart}. */
    public static Ledger openReplica(Path dataDir, LedgerOptions options, Clock clock, Executor afterStart)
            throws IOException {
        return LedgerOpening.open(dataDir, options, clock, RandomGenerator.getDefault(), UnaryOperator.identity(), true,
                SegmentIo.FILES, afterStart);
    }

    // ---------------------------------------------------------------- replica (cluster mode)

    /** The replica's writer (cluster mode); empty in the embedded mode. One thread uses it. */
    public Optional<ReplicaApplies> replicaApplies() {
        return Optional.ofNullable(replica);
    }

    /**
     * The replica position the log held when it was opened: the last applied record's offset and
     * log time. Empty for a log that never applied a replicated record (a fresh replica, or an
     * embedded log).
     */
    public Optional<ReplicaPosition> replicaPosition() {
        return Optional.ofNullable(openedAt);
    }

    // ---------------------------------------------------------------- writes

    /**
     * Sequences and stores validated events, in order; items of one agent are chained in list order.
     * Returns once every stored event is durable. An item whose stored form is refused (over 1 MiB)
     * is reported and takes no place in the log.
     *
     * @throws LedgerUnavailableException when storage failed; none of the items is acknowledged
     */
    public List<AppendOutcome> append(List<ObjectNode> events) throws IOException {
        return writes.append(events);
    }

    /**
     * {@link #append(List)} for a keyed write (an {@code Idempotency-Key}): the answer
     * {@code answer} builds from the outcomes is written as a {@link DedupeRecord} in the <em>same
     * group</em> as the events, under the same commit frame, so after a crash both are in the log
     * or neither is. Returns once the group is durable; the record is then in the dedupe table and
     * the claim has ended. With no event to store (every item refused), the group holds the record
     * alone and is forced on the caller's thread before this returns. On an exception the claim is
     * still held: the caller releases it.
     *
     * @throws LedgerUnavailableException when storage failed; neither events nor record are acknowledged
     */
    public List<AppendOutcome> append(List<ObjectNode> events, KeyedAnswer answer) throws IOException {
        return writes.append(events, answer);
    }

    /**
     * {@link #append(List, KeyedAnswer)} with a keyed answer per event ({@code answers.get(i)} for
     * {@code events.get(i)}, null where an event records nothing): each record is built from its own
     * event's outcome and written in the one group of all the events, under its commit. For keys
     * that name single events (an OTLP span's (trace id, span id), src/site/ingestion.md#otlp). On an exception
     * every claim is still held: the caller releases them.
     */
    public List<AppendOutcome> appendEach(List<ObjectNode> events, List<KeyedAnswer> answers) throws IOException {
        return writes.appendEach(events, answers);
    }

    /** The dedupe lookups that claim a key before a keyed write (src/site/ingestion.md#idempotency). */
    public DedupeClaims dedupe() {
        return dedupeClaims;
    }

    /**
     * {@link #appendAsync(ObjectNode)} for a keyed single event: the record of its answer (if it
     * builds one) sits in the event's group, as with {@link #append(List, KeyedAnswer)}. On an
     * exceptional completion the claim is still held: the caller releases it.
     */
    public CompletableFuture<AppendOutcome> appendAsync(ObjectNode fields, KeyedAnswer answer) {
        return writes.appendAsync(fields, answer);
    }

    /**
     * Stores one validated event without blocking the caller; the future completes once the event
     * is durable, with its outcome, or exceptionally with a {@link LedgerUnavailableException}
     * ({@link LedgerBusyException} at once when {@link LedgerOptions#maxQueuedEvents()} events are waiting).
     * Single events that arrive while others are being sequenced are sequenced together as one
     * group by one thread (one log write, one chain and tree update, one shared force). Order among
     * events of one agent sent concurrently is the order they reach the queue. Cancelling the future
     * before the event's group is sealed withdraws it; after, it is stored (see {@link SingleAppends}).
     */
    public CompletableFuture<AppendOutcome> appendAsync(ObjectNode fields) {
        return writes.appendAsync(fields);
    }

    /**
     * Appends one event the service composed itself (a gate decision, an approval, a violation, a
     * policy document; src/site/gates.md) to its agent's chain, like any event: sequenced with the
     * single events, chained, in the tree, and durable when the future completes (as
     * {@link #appendAsync(ObjectNode, KeyedAnswer)}). Redaction is <em>not</em> applied: the caller
     * composed the fields and redacted whatever client text they carry itself, so that service
     * values (hashes, ids, times) are stored exactly as computed. {@code answer} may be null (no
     * key); with one, its claim is still held on an exceptional completion and the caller releases it.
     * Embedded mode only; in cluster mode the same fields go through the topic.
     */
    public CompletableFuture<AppendOutcome> appendComposedAsync(ObjectNode fields, KeyedAnswer answer) {
        return writes.appendComposedAsync(fields, answer);
    }

    /** True when a failure stopped writes (see {@link #health()}). */
    public boolean failed() {
        return health.writesFailed();
    }

    /** What is wrong with the ledger: accepted losses, rebuilt derived files, the failure that stopped writes. */
    public LedgerHealth health() {
        return health;
    }

    /**
     * What the ledger is still loading after its start, for {@code GET /health}: {@code "tree check"}
     * while the Merkle tree's upper levels are checked (roots and proofs wait for it), {@code "agent
     * positions"} while the positions of the snapshotted events are read from the journal (chain
     * verification, exports and other reads of an agent's events wait for it), {@code "idempotency
     * keys"} while the sealed segments' dedupe records are read (keyed writes are refused meanwhile,
     * see {@link DedupeTable}). Other writes wait for none. Empty once everything is loaded.
     */
    public List<String> loading() {
        List<String> loading = new ArrayList<>(2);
        if (!tree.checked()) {
            loading.add("tree check");
        }
        if (agents.positionsLoading()) {
            loading.add("agent positions");
        }
        if (dedupe.keysLoading()) {
            loading.add("idempotency keys");
        }
        return loading;
    }

    /**
     * Completes once the tree's check after the start is done: for answers given on an I/O thread,
     * which must not wait for it there.
     */
    public CompletableFuture<Void> whenTreeChecked() {
        return tree.whenChecked();
    }

    /** Writes a snapshot covering everything applied so far. */
    void snapshotHeads() throws IOException {
        headSnapshots.snapshot();
    }

    // ---------------------------------------------------------------- erasure (src/site/erasure.md)

    /** The erasures and retention passes of this ledger, and what finishes one a crash interrupted. */
    public LedgerErasures erasures() {
        return erasures;
    }

    /** Log indexes of one agent's readable events, ascending; empty when the agent is unknown. */
    public long[] agentPositions(String agentId) {
        return queries.agentPositions(agentId);
    }

    // ---------------------------------------------------------------- reads

    /**
     * Number of readable events: durable, and in the tree and the agents' state. The tree size every
     * read answers for; it never decreases.
     */
    public long size() {
        return sequencer.readableSize();
    }

    /**
     * Registers {@code listener} to be run each time {@link #size()} may have grown: after every
     * group of events has become readable (it may also run when nothing new is readable). It runs on
     * the thread that stored the events, as they are acknowledged, so it must return at once
     * and never block (hand the work to another thread); ingestion never waits for a reader.
     */
    public void onSizeAdvanced(Runnable listener) {
        sizeListeners.add(listener);
    }

    /**
     * Registers the observer of the log's group-commit forces (metrics: fsync latency and group
     * sizes); it runs on the sync thread and must return at once.
     */
    public void observeForces(ForceObserver observer) {
        log.observeForces(observer);
    }

    /** The stored event's bytes (exactly as hashed and returned by the API), or empty when unknown. */
    public Optional<byte[]> eventPayload(String id) throws IOException {
        return queries.eventPayload(id);
    }

    /**
     * The stored event's bytes at {@code logIndex}, read from storage; for readers that locate events
     * by position (the search index). Only readable events are.
     *
     * @throws IllegalArgumentException when {@code logIndex} is not below {@link #size()}
     */
    public byte[] payloadAt(long logIndex) throws IOException {
        return queries.payloadAt(logIndex);
    }

    /** Visits the readable events {@code [from, to)} in log order, reading sequentially from storage. */
    public void scan(long from, long to, EventLog.PayloadVisitor visitor) throws IOException {
        queries.scan(from, to, visitor);
    }

    /**
     * As {@link #scan}, each event a view valid only during the call ({@link EventLog#scanViews}): for
     * writing stored events straight into an answer without a copy of each.
     */
    public void scanViews(long from, long to, EventLog.PayloadViewVisitor visitor) throws IOException {
        queries.scanViews(from, to, visitor);
    }

    public static boolean wellFormedId(String id) {
        return EventIds.wellFormed(id);
    }

    /** The root of the tree at {@code treeSize} (0 gives the empty-tree root). */
    public byte[] root(long treeSize) {
        return queries.root(treeSize);
    }

    /** The inclusion proof of an event in the tree at {@code treeSize}, or empty when the event is unknown. */
    public Optional<InclusionProof> inclusionProof(String eventId, long treeSize) throws IOException {
        return queries.inclusionProof(eventId, treeSize);
    }

    /**
     * {@code count} consecutive perfect-subtree hashes of {@code level} from index {@code from},
     * concatenated, as stored (no hashing): what tlog-tiles serves. Only nodes of the readable tree.
     *
     * @throws IllegalArgumentException when the readable tree does not have them all
     */
    public byte[] treeNodes(int level, long from, int count) {
        return queries.treeNodes(level, from, count);
    }

    /** The RFC 9162 consistency proof from size {@code from} to size {@code to}. */
    public List<byte[]> consistencyProof(long from, long to) {
        return queries.consistencyProof(from, to);
    }

    /**
     * Recomputes the root at {@code treeSize} from the log: reads every event up to it (O(n) reads),
     * recomputes each hash from the event's fields, and compares each leaf with the stored tree. Used
     * where a stamped root must be shown to still follow from the events, not from derived files.
     */
    public RootRecomputation recomputeRoot(long treeSize) throws IOException {
        return queries.recomputeRoot(treeSize);
    }

    public boolean hasAgent(String agentId) {
        return queries.hasAgent(agentId);
    }

    /**
     * Every agent with a readable event, ordered by id; each row describes readable events only, and
     * carries a verdict (a chain not verified yet is verified while the answer is built).
     */
    public List<AgentSummary> agents() throws IOException {
        return queries.agents();
    }

    public Stats stats() throws IOException {
        return queries.stats();
    }

    /**
     * A snapshot of one agent's chain for an evidence package (src/site/evidence-format.md): the current tree size and
     * root, and the agent's events in that tree, limited to the run from its first to its last event
     * whose {@code timestamp} is in {@code [since, until)} (either bound may be null). Finding that
     * run reads each of the agent's events once. Empty when the agent has no event in the tree.
     */
    public Optional<ChainSlice> slice(String agentId, Instant since, Instant until) throws IOException {
        return queries.slice(agentId, since, until);
    }

    // ---------------------------------------------------------------- verification

    /**
     * Re-verifies one agent's chain from storage (every hash recomputed, every link, sequence and tree
     * leaf checked) and records the outcome for {@code GET /v1/agents}. Empty when the agent is unknown.
     */
    public Optional<ChainReport> verify(String agentId) throws IOException {
        return audit.verify(agentId);
    }

    /** Re-verifies every chain; returns how many are valid. Logs every current {@link #health()} problem. */
    public long verifyAll() throws IOException {
        return audit.verifyAll(Pacer.unpaced());
    }

    /**
     * {@link #verifyAll()} at the pace the pacer sets: for the periodic check, which must not take
     * a whole core from the requests served beside it.
     */
    public long verifyAll(Pacer pacer) throws IOException {
        return audit.verifyAll(pacer);
    }

    // ---------------------------------------------------------------- policy checks

    /**
     * Runs policies over the readable events in one sequential pass in log order (src/site/redaction.md);
     * memory does not grow with the number of events. Changes nothing.
     *
     * @see PolicyEngine for the narrowing by agent and time
     */
    public PolicyReport checkPolicies(List<Policy> policies,
            String agentId, Instant since, Instant until) throws IOException {
        return PolicyPass.run(log, tree, size(), policies, agentId, since, until);
    }

    // ---------------------------------------------------------------- backup (src/site/operations.md)

    /** The log's files for an online backup: a hold that keeps them unchanged, and their committed prefixes. */
    public LogFiles logFiles() {
        return logFiles;
    }

    /**
     * Cluster mode: the offset of the last topic record the log holds up to {@code size} events, as
     * {@link #logFiles()} cuts them (the replica position written with the group of
     * event {@code size - 1}); a node restored from those files consumes the topic after it. Empty in
     * the embedded mode or for {@code size} 0.
     */
    public Optional<Long> replicaOffsetAt(long size) throws IOException {
        if (replica == null || size == 0) {
            return Optional.empty();
        }
        if (size > size()) {
            throw new IllegalArgumentException("tree size " + size + " is not readable (readable: " + size() + ")");
        }
        return ReplicaPosition.offsetInGroupOf(log, size);
    }

    // ---------------------------------------------------------------- lifecycle

    /** Stops writes, writes a final snapshot and closes storage. */
    @Override
    public void close() throws IOException {
        if (!sequencer.close()) {
            return;
        }
        singles.stop();
        headSnapshots.stop();
        try {
            if (!health.writesFailed()) {
                headSnapshots.snapshot();
            }
        } finally {
            try {
                tree.close();
            } finally {
                log.close();
            }
        }
    }
}
