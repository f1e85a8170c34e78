package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.chain.ChainVerifier;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventRejection;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.StreamingRoot;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.ledger.LedgerViews.AgentSummary;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.ledger.LedgerViews.InclusionProof;
import io.trailproof.ledger.LedgerViews.Stats;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;
import io.trailproof.store.SegmentLog;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The ledger: sequences events into per-agent chains and the one log, keeps the Merkle tree over the
 * log, and answers every question that is computed from the log (CONTRACT 2, 3, 8).
 *
 * <p><b>Durability:</b> {@link #append} returns only after every event it stored is forced to disk
 * (group commit: concurrent appends share one force). Reads see the log up to its durable end, so a
 * root or proof that was served can always be reproduced after a crash.
 *
 * <p><b>Derived state</b> (chain heads, event positions per agent, Merkle node hashes) is
 * checkpointed every {@code checkpointIntervalEvents} events and at {@link #close}; on open it is
 * caught up from the log, so deleting it loses nothing.
 *
 * <p>If storage fails while writing, the ledger refuses further writes
 * ({@link LedgerUnavailableException}) until it is restarted; reads keep working.
 */
public final class Ledger implements Closeable {

    private static final System.Logger LOG = System.getLogger(Ledger.class.getName());

    /**
     * Tunables of the storage layout and the ledger's limits.
     *
     * @param acceptTruncation open even when acknowledged events are missing from the log (the loss is
     *     then reported by {@code GET /health}); false refuses to open
     * @param maxQueuedEvents single events waiting for the sequencer before {@link #appendAsync} refuses more
     */
    public record Options(long segmentBytes, long checkpointIntervalEvents, boolean acceptTruncation,
                          int maxQueuedEvents) {
        public Options(long segmentBytes, long checkpointIntervalEvents) {
            this(segmentBytes, checkpointIntervalEvents, false, 65536);
        }

        public static Options defaults() {
            return new Options(64L << 20, 100_000);
        }
    }

    private final Path dataDir;
    private final EventLog log;
    private final MerkleNodeStore tree;
    private final Clock clock;
    private final EventIds ids;
    private final Options options;
    private final Map<String, AgentState> agents = new ConcurrentHashMap<>();
    private final Object sequencer = new Object();
    private final ExecutorService checkpointer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "trailproof-checkpoint");
        t.setDaemon(true);
        return t;
    });
    private final AtomicBoolean checkpointPending = new AtomicBoolean();

    // Guarded by sequencer.
    private Instant lastRecordedAt = Instant.EPOCH;
    private String lastHash = EventFields.GENESIS_PREV_HASH;
    private long checkpointedSize;
    private boolean closed;
    private volatile IOException failure;

    private Ledger(Path dataDir, EventLog log, MerkleNodeStore tree, Clock clock, RandomGenerator random, Options options) {
        this.dataDir = dataDir;
        this.log = log;
        this.tree = tree;
        this.clock = clock;
        this.ids = new EventIds(random);
        this.options = options;
    }

    /**
     * Opens the ledger in {@code dataDir}: checks every log frame, cuts a torn tail, and brings the
     * chain heads and the tree up to the end of the log.
     *
     * @throws CorruptLogException when stored frames fail their check (nothing is silently dropped)
     */
    public static Ledger open(Path dataDir, Options options, Clock clock, RandomGenerator random) throws IOException {
        SegmentLog log = SegmentLog.open(dataDir.resolve("log"), options.segmentBytes(), options.acceptTruncation());
        if (log.recoveredTailBytes() > 0) {
            LOG.log(System.Logger.Level.WARNING, "cut " + log.recoveredTailBytes() + " bytes of torn, uncommitted or refused "
                    + "tail off the log (a crash or a failed write; none of it was acknowledged)");
        }
        try {
            Checkpoint checkpoint = usableCheckpoint(dataDir, log);
            long covered = checkpoint == null ? 0 : checkpoint.logSize();
            MerkleNodeStore tree = MerkleNodeStore.open(dataDir.resolve("merkle"), covered);
            tree.repairs().forEach(r -> LOG.log(System.Logger.Level.WARNING, "Merkle tree repaired at start: " + r));
            Ledger ledger = new Ledger(dataDir, log, tree, clock, random, options);
            ledger.catchUp(checkpoint);
            return ledger;
        } catch (IOException | RuntimeException e) {
            log.close();
            throw e;
        }
    }

    private static Checkpoint usableCheckpoint(Path dataDir, EventLog log) throws IOException {
        Checkpoint checkpoint = Checkpoint.read(dataDir.resolve("checkpoint"));
        if (checkpoint == null || checkpoint.logSize() == 0) {
            return null;
        }
        if (checkpoint.logSize() > log.size()) {
            LOG.log(System.Logger.Level.WARNING, "checkpoint covers " + checkpoint.logSize() + " events but the log has "
                    + log.size() + "; rebuilding chain heads and tree from the log");
            return null;
        }
        String hashInLog;
        try {
            hashInLog = StoredEvent.parse(log.read(checkpoint.logSize() - 1)).hash();
        } catch (Exception e) {
            hashInLog = "unreadable";
        }
        if (!hashInLog.equals(checkpoint.lastHash())) {
            LOG.log(System.Logger.Level.WARNING, "checkpoint does not match the log at index " + (checkpoint.logSize() - 1)
                    + "; rebuilding chain heads and tree from the log");
            return null;
        }
        return checkpoint;
    }

    private void catchUp(Checkpoint checkpoint) throws IOException {
        long covered = 0;
        if (checkpoint != null) {
            covered = checkpoint.logSize();
            lastHash = checkpoint.lastHash();
            lastRecordedAt = Instant.parse(checkpoint.lastRecordedAt());
            for (Checkpoint.Agent a : checkpoint.agents()) {
                AgentState state = new AgentState(a.agentId());
                state.restore(a.positions(), a.headSequence(), a.headHash(), a.lastRecordedAt());
                agents.put(a.agentId(), state);
            }
        }
        long treeSize = tree.size();
        long from = Math.min(treeSize, covered);
        long end = log.size();
        if (from < end) {
            LOG.log(System.Logger.Level.INFO, "catching up from the log: events " + from + " to " + end);
        }
        long coveredFinal = covered;
        log.scan(from, end, (index, payload) -> {
            StoredEvent event;
            try {
                event = StoredEvent.parse(payload);
            } catch (Exception e) {
                throw new IOException("the event at log index " + index + " is not a readable stored event ("
                        + e.getMessage() + "): the log has been altered; restore it from a backup", e);
            }
            if (index >= treeSize) {
                tree.append(Rfc9162.leafHash(event.hashBytes()));
            }
            if (index >= coveredFinal) {
                agents.computeIfAbsent(event.agentId(), AgentState::new)
                        .add(index, event.sequence(), event.hash(), event.recordedAt());
                lastHash = event.hash();
                Instant recorded = Instant.parse(event.recordedAt());
                if (recorded.isAfter(lastRecordedAt)) {
                    lastRecordedAt = recorded;
                }
            }
        });
        checkpointedSize = covered;
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
        Sequenced s = sequence(events);
        try {
            log.awaitDurable(s.end());
        } catch (IOException e) {
            failure = e;
            throw new LedgerUnavailableException("storage failed while forcing the log: " + e.getMessage(), e);
        }
        maybeCheckpoint(s.end());
        return Arrays.asList(s.outcomes());
    }

    /**
     * Stores one validated event without blocking the caller; the future completes once the event
     * is durable, with its outcome, or exceptionally with a {@link LedgerUnavailableException}.
     * Single events that arrive while others are being sequenced are sequenced together as one
     * group by one thread (one log write, one chain and tree update, one shared force), so
     * concurrent agents do not take the sequencer one by one. Order among events of one agent
     * sent concurrently is the order they reach the queue.
     */
    public CompletableFuture<AppendOutcome> appendAsync(ObjectNode fields) {
        return singles.submit(fields);
    }

    /** Events sequenced and written, not yet durable: their outcomes and the log size after them. */
    private record Sequenced(AppendOutcome[] outcomes, long end) {
    }

    /**
     * Seals and writes a group of events in order and updates the chains and the tree; the caller
     * waits for durability before acknowledging any of them.
     */
    private Sequenced sequence(List<ObjectNode> events) throws LedgerUnavailableException {
        AppendOutcome[] outcomes = new AppendOutcome[events.size()];
        long end;
        synchronized (sequencer) {
            if (closed) {
                throw new LedgerUnavailableException("the service is shutting down", null);
            }
            throwIfFailed();
            long index = log.size();
            Map<String, AgentState.Head> pending = new HashMap<>();
            List<StoredEvent> sealed = new ArrayList<>(events.size());
            for (int i = 0; i < events.size(); i++) {
                ObjectNode fields = events.get(i);
                String agentId = fields.get(EventFields.AGENT_ID).asText();
                AgentState.Head head = pending.get(agentId);
                if (head == null) {
                    AgentState state = agents.get(agentId);
                    head = state == null ? new AgentState.Head(0, EventFields.GENESIS_PREV_HASH) : state.head();
                }
                Instant now = nextRecordedAt();
                try {
                    StoredEvent event = StoredEvent.seal(fields, ids.create(now.toEpochMilli(), index),
                            EventTime.formatRecordedAt(now), head.sequence() + 1, head.hash(), index);
                    sealed.add(event);
                    pending.put(agentId, new AgentState.Head(event.sequence(), event.hash()));
                    outcomes[i] = AppendOutcome.stored(event);
                    index++;
                } catch (EventRejection e) {
                    outcomes[i] = AppendOutcome.refused(e.getMessage());
                }
            }
            if (!sealed.isEmpty()) {
                List<byte[]> payloads = new ArrayList<>(sealed.size());
                for (StoredEvent e : sealed) {
                    payloads.add(e.payload());
                }
                try {
                    log.append(payloads);
                    for (StoredEvent e : sealed) {
                        tree.append(Rfc9162.leafHash(e.hashBytes()));
                    }
                } catch (IOException | RuntimeException e) {
                    failure = e instanceof IOException io ? io : new IOException(e);
                    throw new LedgerUnavailableException("storage failed while writing: " + e.getMessage(), e);
                }
                for (StoredEvent e : sealed) {
                    agents.computeIfAbsent(e.agentId(), AgentState::new)
                            .add(e.logIndex(), e.sequence(), e.hash(), e.recordedAt());
                }
                lastHash = sealed.get(sealed.size() - 1).hash();
            }
            end = index;
        }
        return new Sequenced(outcomes, end);
    }

    /**
     * The queue of {@link #appendAsync} and the thread that drains it: whatever has arrived is
     * sequenced as one group, and each caller's future completes when its group is durable (on the
     * thread that forced the log).
     */
    private final class SingleAppends {
        /** Most events one group takes, so that a flood of singles still gets acknowledged in steps. */
        private static final int MAX_GROUP = 1024;

        private record Pending(ObjectNode fields, CompletableFuture<AppendOutcome> done) {
        }

        /** Queued by {@link #stop}: the sequencer thread ends when it reaches it. */
        private static final Pending STOP = new Pending(null, null);

        private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
        private Thread thread;
        private boolean stopped;

        CompletableFuture<AppendOutcome> submit(ObjectNode fields) {
            Pending p = new Pending(fields, new CompletableFuture<>());
            synchronized (this) {
                if (stopped) {
                    return CompletableFuture.failedFuture(new LedgerUnavailableException("the service is shutting down", null));
                }
                if (thread == null) {
                    thread = Thread.ofPlatform().daemon().name("trailproof-sequencer").start(this::run);
                }
                queue.add(p);
            }
            return p.done();
        }

        private void run() {
            while (true) {
                Pending first;
                try {
                    first = queue.take();
                } catch (InterruptedException e) {
                    continue; // only STOP ends this thread: an interrupt inside a write would break the tree store
                }
                List<Pending> group = new ArrayList<>();
                group.add(first);
                queue.drainTo(group, MAX_GROUP - 1);
                int stop = -1;
                for (int i = 0; i < group.size() && stop < 0; i++) {
                    if (group.get(i) == STOP) {
                        stop = i;
                    }
                }
                if (stop >= 0) {
                    if (stop > 0) {
                        store(group.subList(0, stop));
                    }
                    return; // nothing is queued after STOP (submit refuses once stopped)
                }
                store(group);
            }
        }

        private void store(List<Pending> group) {
            List<ObjectNode> fields = new ArrayList<>(group.size());
            for (Pending p : group) {
                fields.add(p.fields());
            }
            Sequenced s;
            try {
                s = sequence(fields);
            } catch (LedgerUnavailableException | RuntimeException e) {
                group.forEach(p -> p.done().completeExceptionally(e));
                return;
            }
            log.whenDurable(s.end()).whenComplete((v, error) -> {
                if (error != null) {
                    IOException io = error instanceof IOException e ? e : new IOException(error);
                    failure = io;
                    LedgerUnavailableException e = new LedgerUnavailableException(
                            "storage failed while forcing the log: " + io.getMessage(), io);
                    group.forEach(p -> p.done().completeExceptionally(e));
                    return;
                }
                for (int i = 0; i < group.size(); i++) {
                    group.get(i).done().complete(s.outcomes()[i]);
                }
                maybeCheckpoint(s.end());
            });
        }

        /**
         * Stops taking events: those queued before are still handed to the sequencer (which refuses
         * them once the ledger is closed), those sequenced complete as usual. The thread is never
         * interrupted; it ends at {@link #STOP}.
         */
        void stop() {
            Thread t;
            synchronized (this) {
                if (stopped) {
                    return;
                }
                stopped = true;
                t = thread;
                if (t != null) {
                    queue.add(STOP);
                }
            }
            if (t != null) {
                try {
                    t.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private final SingleAppends singles = new SingleAppends();

    /** recorded_at: the clock in microseconds, never earlier than the previous event's (CONTRACT 2.2). */
    private Instant nextRecordedAt() {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        if (now.isBefore(lastRecordedAt)) {
            now = lastRecordedAt;
        }
        lastRecordedAt = now;
        return now;
    }

    private void throwIfFailed() throws LedgerUnavailableException {
        IOException f = failure;
        if (f != null) {
            throw new LedgerUnavailableException("storage failed earlier (" + f.getMessage()
                    + "); restart the service to recover", f);
        }
    }

    /** True when a storage failure stopped writes. */
    public boolean failed() {
        return failure != null;
    }

    // ---------------------------------------------------------------- checkpoints

    private void maybeCheckpoint(long end) {
        long since;
        synchronized (sequencer) {
            since = end - checkpointedSize;
        }
        if (since >= options.checkpointIntervalEvents() && checkpointPending.compareAndSet(false, true)) {
            checkpointer.execute(() -> {
                try {
                    checkpoint();
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "checkpoint failed (the next start re-reads more of the log): " + e);
                } finally {
                    checkpointPending.set(false);
                }
            });
        }
    }

    /** Writes a checkpoint covering everything appended so far (after forcing it). */
    void checkpoint() throws IOException {
        Checkpoint snapshot;
        synchronized (sequencer) {
            long size = log.size();
            if (size == 0 || size == checkpointedSize) {
                return;
            }
            List<Checkpoint.Agent> heads = new ArrayList<>(agents.size());
            for (AgentState a : agents.values()) {
                heads.add(a.checkpoint());
            }
            snapshot = new Checkpoint(size, lastHash, EventTime.formatRecordedAt(lastRecordedAt), heads);
            tree.force();
        }
        log.awaitDurable(snapshot.logSize());
        snapshot.write(dataDir.resolve("checkpoint"));
        synchronized (sequencer) {
            checkpointedSize = Math.max(checkpointedSize, snapshot.logSize());
        }
    }

    // ---------------------------------------------------------------- reads

    /** Number of durable events: the tree size every read answers for. */
    public long size() {
        return log.durableSize();
    }

    /** The stored event's bytes (exactly as hashed and returned by the API), or empty when unknown. */
    public Optional<byte[]> eventPayload(String id) throws IOException {
        OptionalLong index = EventIds.logIndexOf(id);
        if (index.isEmpty() || index.getAsLong() >= size()) {
            return Optional.empty();
        }
        byte[] payload = log.read(index.getAsLong());
        try {
            if (!StoredEvent.parse(payload).id().equals(id)) {
                return Optional.empty();
            }
        } catch (Exception e) {
            return Optional.empty();
        }
        return Optional.of(payload);
    }

    /**
     * The stored event's bytes at {@code logIndex}, read from storage; for readers that locate events
     * by position (the search index). Only durable events are readable.
     *
     * @throws IllegalArgumentException when {@code logIndex} is not below {@link #size()}
     */
    public byte[] payloadAt(long logIndex) throws IOException {
        if (logIndex < 0 || logIndex >= size()) {
            throw new IllegalArgumentException("log index " + logIndex + " is not below the durable size " + size());
        }
        return log.read(logIndex);
    }

    /** Visits the durable events {@code [from, to)} in log order, reading sequentially from storage. */
    public void scan(long from, long to, EventLog.PayloadVisitor visitor) throws IOException {
        if (from < 0 || to > size() || from > to) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") is not within the durable size " + size());
        }
        log.scan(from, to, visitor);
    }

    public static boolean wellFormedId(String id) {
        return EventIds.wellFormed(id);
    }

    /** The root of the tree at {@code treeSize} (0 gives the empty-tree root). */
    public byte[] root(long treeSize) {
        checkSize(treeSize, "tree_size");
        return treeSize == 0 ? Rfc9162.emptyRoot() : MerkleTree.root(tree, treeSize);
    }

    /** The inclusion proof of an event in the tree at {@code treeSize}, or empty when the event is unknown. */
    public Optional<InclusionProof> inclusionProof(String eventId, long treeSize) throws IOException {
        Optional<byte[]> payload = eventPayload(eventId);
        if (payload.isEmpty()) {
            return Optional.empty();
        }
        long leafIndex = EventIds.logIndexOf(eventId).orElseThrow();
        checkSize(treeSize, "tree_size");
        if (treeSize <= leafIndex) {
            throw new IllegalArgumentException("tree_size " + treeSize + " does not contain the event (its leaf index is "
                    + leafIndex + ")");
        }
        return Optional.of(new InclusionProof(eventId, leafIndex, tree.get(0, leafIndex), treeSize,
                MerkleTree.root(tree, treeSize), MerkleTree.inclusionProof(tree, leafIndex, treeSize)));
    }

    /** The RFC 9162 consistency proof from size {@code from} to size {@code to}. */
    public List<byte[]> consistencyProof(long from, long to) {
        checkSize(to, "to");
        if (from < 1 || from > to) {
            throw new IllegalArgumentException("from must be between 1 and to (" + to + ")");
        }
        return MerkleTree.consistencyProof(tree, from, to);
    }

    /**
     * Recomputes the root at {@code treeSize} from the log: reads every event up to it (O(n) reads),
     * recomputes each hash from the event's fields, and compares each leaf with the stored tree. Used
     * where a stamped root must be shown to still follow from the events, not from derived files.
     */
    public RootRecomputation recomputeRoot(long treeSize) throws IOException {
        checkSize(treeSize, "tree_size");
        StreamingRoot root = new StreamingRoot();
        LeafWindow leaves = new LeafWindow(tree, treeSize);
        long[] firstAltered = {-1};
        String[] evidence = new String[2];
        log.scan(0, treeSize, (index, payload) -> {
            byte[] leaf;
            String problem = null;
            String id = null;
            long claimedIndex;
            // An intact event is recognised by its bytes; only an altered one needs the full parse.
            Optional<IntactEvent> intact = IntactEvent.check(payload);
            if (intact.isPresent()) {
                id = intact.get().id();
                leaf = Rfc9162.leafHash(intact.get().hashBytes());
                claimedIndex = intact.get().logIndex();
            } else {
                try {
                    StoredEvent event = StoredEvent.parse(payload);
                    id = event.id();
                    byte[] recomputed = event.recomputeHash();
                    leaf = Rfc9162.leafHash(recomputed);
                    claimedIndex = event.logIndex();
                    if (!java.security.MessageDigest.isEqual(recomputed, event.hashBytes())) {
                        problem = "its fields no longer hash to its stored hash";
                    }
                } catch (StoredEventFormatException e) {
                    leaf = Rfc9162.leafHash(Rfc9162.emptyRoot());   // stands for "unreadable"; the root then differs
                    claimedIndex = index;
                    problem = "it is not a readable stored event (" + e.getMessage() + ")";
                }
            }
            if (problem == null && claimedIndex != index) {
                problem = "it claims log index " + claimedIndex;
            } else if (problem == null && !java.security.MessageDigest.isEqual(leaf, leaves.get(0, index))) {
                problem = "its hash is not the leaf stored in the tree";
            }
            if (problem != null && firstAltered[0] < 0) {
                firstAltered[0] = index;
                evidence[0] = id;
                evidence[1] = problem;
            }
            root.add(leaf);
        });
        return new RootRecomputation(treeSize, root.root(), firstAltered[0], evidence[0], evidence[1]);
    }

    private void checkSize(long treeSize, String name) {
        long current = size();
        if (treeSize < 0 || treeSize > current) {
            throw new IllegalArgumentException(name + " must be between 0 and the current tree size " + current);
        }
    }

    public boolean hasAgent(String agentId) {
        return agents.containsKey(agentId);
    }

    /** Every agent, ordered by id, counted up to the durable end of the log. */
    public List<AgentSummary> agents() {
        long end = size();
        List<AgentSummary> out = new ArrayList<>();
        for (AgentState a : agents.values()) {
            AgentState.Summary s = a.summary(end);
            if (s.eventCount() > 0) {
                out.add(new AgentSummary(s.agentId(), s.eventCount(), s.lastActivity(), s.chainValid(), s.headSequence(),
                        s.headHash(), s.verifiedAt()));
            }
        }
        out.sort(Comparator.comparing(AgentSummary::agentId));
        return out;
    }

    public Stats stats() throws IOException {
        long end = size();
        Instant dayAgo = clock.instant().minus(Duration.ofDays(1));
        List<AgentSummary> all = agents();
        long active = all.stream().filter(a -> a.lastActivity() != null
                && !Instant.parse(a.lastActivity()).isBefore(dayAgo)).count();
        long verified = all.stream().filter(a -> a.chainValid() != null).count();
        long valid = all.stream().filter(a -> Boolean.TRUE.equals(a.chainValid())).count();
        double health = verified == 0 ? 1.0 : (double) valid / verified;
        return new Stats(end, end - firstRecordedAtOrAfter(dayAgo, end), active, health, all.size(), end,
                java.util.HexFormat.of().formatHex(root(end)));
    }

    /** recorded_at never decreases along the log, so the first event of the last 24 h is found by bisection. */
    private long firstRecordedAtOrAfter(Instant t, long end) throws IOException {
        long lo = 0;
        long hi = end;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            Instant recorded;
            try {
                recorded = Instant.parse(StoredEvent.parse(log.read(mid)).recordedAt());
            } catch (CorruptLogException e) {
                throw e;
            } catch (Exception e) {
                recorded = Instant.EPOCH; // an unreadable event is reported by verification, not here
            }
            if (recorded.isBefore(t)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * A snapshot of one agent's chain for an evidence package (CONTRACT 5): the current tree size and
     * root, and the agent's events in that tree, limited to the run from its first to its last event
     * whose {@code timestamp} is in {@code [since, until)} (either bound may be null). Finding that
     * run reads each of the agent's events once. Empty when the agent has no event in the tree.
     */
    public Optional<ChainSlice> slice(String agentId, Instant since, Instant until) throws IOException {
        AgentState state = agents.get(agentId);
        if (state == null) {
            return Optional.empty();
        }
        long treeSize = size();
        int count = state.countBelow(treeSize);
        if (count == 0) {
            return Optional.empty();
        }
        Instant takenAt = clock.instant();
        byte[] root = root(treeSize);
        int from = 0;
        int to = count;
        if (since != null || until != null) {
            from = -1;
            to = -1;
            for (int i = 0; i < count; i++) {
                StoredEvent event = storedOrNull(state.positionAt(i));
                if (event != null && inWindow(event.timestamp(), since, until)) {
                    if (from < 0) {
                        from = i;
                    }
                    to = i + 1;
                }
            }
            if (from < 0) {
                from = 0;
                to = 0;
            }
        }
        long firstSequence = from + 1;
        long lastSequence = to;
        String anchor = null;
        if (to > from) {
            StoredEvent first = storedOrNull(state.positionAt(from));
            StoredEvent last = storedOrNull(state.positionAt(to - 1));
            // An unreadable event keeps its place; verification of the package names it.
            firstSequence = first != null ? first.sequence() : from + 1;
            lastSequence = last != null ? last.sequence() : to;
            anchor = first != null ? first.prevHash() : EventFields.GENESIS_PREV_HASH;
        }
        return Optional.of(new ChainSlice(agentId, state, log, tree, treeSize, root, takenAt, from, to, firstSequence,
                lastSequence, anchor));
    }

    private static boolean inWindow(String timestamp, Instant since, Instant until) {
        Instant t;
        try {
            t = EventTime.parseTimestamp(timestamp);
        } catch (RuntimeException e) {
            return false;
        }
        return (since == null || !t.isBefore(since)) && (until == null || t.isBefore(until));
    }

    private StoredEvent storedOrNull(long position) throws IOException {
        try {
            return StoredEvent.parse(log.read(position));
        } catch (CorruptLogException e) {
            throw e;
        } catch (Exception e) {
            return null;
        }
    }

    // ---------------------------------------------------------------- verification

    /**
     * Re-verifies one agent's chain from storage (every hash recomputed, every link, sequence and tree
     * leaf checked) and records the outcome for {@code GET /v1/agents}. Empty when the agent is unknown.
     */
    public Optional<ChainReport> verify(String agentId) throws IOException {
        AgentState state = agents.get(agentId);
        if (state == null) {
            return Optional.empty();
        }
        long end = size();
        ChainVerifier verifier = new ChainVerifier(agentId, 1, EventFields.GENESIS_PREV_HASH);
        LeafWindow leaves = new LeafWindow(tree, end);
        try {
            log.readEach(state.positionsBelow(end), (position, payload) -> {
                if (verifier.next(payload, position, leaves).isPresent()) {
                    throw StopWalk.INSTANCE;
                }
            });
        } catch (StopWalk stop) {
            // the verifier holds the first failure
        } catch (CorruptLogException e) {
            verifier.unreadable(e.getMessage());
        }
        ChainReport report = new ChainReport(agentId, verifier.failure().isEmpty(), verifier.verified(),
                verifier.headSequence(), verifier.headHash(), verifier.failure());
        state.recordVerification(report.valid(), report.failure().map(f -> f.message()).orElse(null), clock.instant());
        if (!report.valid()) {
            LOG.log(System.Logger.Level.WARNING, "chain of agent " + agentId + " does not verify: "
                    + report.failure().get());
        }
        return Optional.of(report);
    }

    /** Re-verifies every chain; returns how many are valid. */
    public long verifyAll() throws IOException {
        long valid = 0;
        List<String> ids = new ArrayList<>(agents.keySet());
        ids.sort(Comparator.naturalOrder());
        for (String id : ids) {
            if (verify(id).map(ChainReport::valid).orElse(true)) {
                valid++;
            }
        }
        return valid;
    }

    // ---------------------------------------------------------------- lifecycle

    /** Stops writes, writes a final checkpoint and closes storage. */
    @Override
    public void close() throws IOException {
        synchronized (sequencer) {
            if (closed) {
                return;
            }
            closed = true;
        }
        singles.stop();
        checkpointer.shutdown();
        try {
            checkpointer.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (failure == null) {
                checkpoint();
            }
        } finally {
            try {
                tree.close();
            } finally {
                log.close();
            }
        }
    }

    /** Ends a walk over a chain at its first failure. */
    private static final class StopWalk extends IOException {
        static final StopWalk INSTANCE = new StopWalk();

        private StopWalk() {
            super("stop", null);
            setStackTrace(new StackTraceElement[0]);
        }
    }
}
