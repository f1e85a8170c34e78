package io.trailproof.ledger;

import io.trailproof.background.Pacer;
import io.trailproof.core.chain.ChainVerifier;
import io.trailproof.core.chain.ErasureRecords;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Re-verifies chains from storage (every hash recomputed, every link, sequence and tree leaf
 * checked) up to the readable size, and records each outcome for {@code GET /v1/agents}.
 */
final class ChainAudit {

    private static final System.Logger LOG = System.getLogger(ChainAudit.class.getName());
    /** Chains at least this long are verified on demand in two halves at once ({@link #inHalves}). */
    static final int HALVES_FROM_EVENTS = 8_192;

    private final EventLog log;
    private final MerkleNodeStore tree;
    private final AgentTable agents;
    private final LongSupplier readableSize;
    private final Clock clock;
    private final LedgerHealth health;
    private final ErasureRecords erasures;
    /**
     * Runs the second half of a long chain's verification ({@link #inHalves}): at most two at once,
     * none kept while idle; when both are busy, a verification walks its chain in one piece.
     */
    private final ThreadPoolExecutor halves = new ThreadPoolExecutor(0, 2, 30, TimeUnit.SECONDS,
            new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "trailproof-verify-half");
                t.setDaemon(true);
                return t;
            });

    ChainAudit(EventLog log, MerkleNodeStore tree, AgentTable agents, LongSupplier readableSize, Clock clock,
               LedgerHealth health, ErasureRecords erasures) {
        this.erasures = erasures;
        this.log = log;
        this.tree = tree;
        this.agents = agents;
        this.readableSize = readableSize;
        this.clock = clock;
        this.health = health;
    }

    /** Verifies one agent's chain up to the readable size; empty when the agent is unknown. */
    Optional<ChainReport> verify(String agentId) throws IOException {
        AgentState state = agents.get(agentId);
        if (state == null) {
            return Optional.empty();
        }
        return Optional.of(verify(state, readableSize.getAsLong()));
    }

    /** Verifies {@code state}'s events below {@code end} and records the outcome. */
    ChainReport verify(AgentState state, long end) throws IOException {
        return verify(state, end, Pacer.unpaced());
    }

    private ChainReport verify(AgentState state, long end, Pacer pacer) throws IOException {
        String agentId = state.agentId();
        long[] positions = state.positionsBelow(end);
        ChainReport report = null;
        if (pacer == Pacer.unpaced() && positions.length >= HALVES_FROM_EVENTS) {
            report = inHalves(agentId, positions, end);
        }
        if (report == null) {
            report = reportOf(agentId, walk(agentId, positions, 1, EventFields.GENESIS_PREV_HASH, end, pacer), null);
        }
        state.recordVerification(report.valid(), report.failure().map(f -> f.message()).orElse(null), clock.instant());
        if (!report.valid()) {
            LOG.log(System.Logger.Level.WARNING, "chain of agent " + agentId + " does not verify: "
                    + report.failure().get());
        }
        return report;
    }

    /** Walks the events at {@code positions}, the chain from {@code firstSequence} on after {@code anchor}. */
    private ChainVerifier walk(String agentId, long[] positions, long firstSequence, String anchor, long end,
                               Pacer pacer) throws IOException {
        ChainVerifier verifier = new ChainVerifier(agentId, firstSequence, anchor).withErasures(erasures);
        LeafWindow leaves = new LeafWindow(tree, end);
        long[] visited = {0};
        try {
            log.readEach(positions, (position, payload) -> {
                if (verifier.next(payload, position, leaves).isPresent()) {
                    throw StopWalk.INSTANCE;
                }
                if ((++visited[0] & 63) == 0) {
                    pacer.pace();
                }
            });
        } catch (StopWalk stop) {
            // the verifier holds the first failure
        } catch (CorruptLogException e) {
            verifier.unreadable(e.getMessage());
        }
        return verifier;
    }

    /**
     * The same verification as one walk, in two halves at once: the second half is walked on another
     * thread from the stored {@code hash} of the first half's last event, as if the chain began there,
     * and the two are joined by checking that the first half, walked from the genesis, ends on that
     * very hash. Every event is checked as in one walk, and the answer is the one walk's: the first
     * half's failure when it has one (it comes first in the chain), else the second's, which was
     * checked from the same sequence and hash one walk would have reached. On two idle cores a long
     * chain takes about half the time, for the same CPU. Null when the halves cannot be used (the
     * join's event cannot be read, or both threads for halves are busy): the caller walks once.
     */
    private ChainReport inHalves(String agentId, long[] positions, long end) throws IOException {
        int k = positions.length / 2;
        String joint;
        try {
            joint = StoredEvent.parse(log.read(positions[k - 1])).hash();
        } catch (IOException | StoredEventFormatException | RuntimeException unreadable) {
            return null; // the one walk reads it again, and decides and explains
        }
        long[] first = Arrays.copyOfRange(positions, 0, k);
        long[] second = Arrays.copyOfRange(positions, k, positions.length);
        Future<ChainVerifier> later;
        try {
            later = halves.submit(() -> walk(agentId, second, k + 1, joint, end, Pacer.unpaced()));
        } catch (RejectedExecutionException busy) {
            return null;
        }
        ChainVerifier head;
        ChainVerifier tail;
        try {
            head = walk(agentId, first, 1, EventFields.GENESIS_PREV_HASH, end, Pacer.unpaced());
            tail = later.get();
        } catch (InterruptedException e) {
            later.cancel(true);
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while verifying the chain of agent " + agentId);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("verifying the second half of the chain of agent " + agentId, e.getCause());
        } finally {
            later.cancel(true);
        }
        if (head.failure().isPresent()) {
            return reportOf(agentId, head, null);
        }
        if (head.headSequence() != k || !head.headHash().equals(joint)) {
            // The joint's event read otherwise during the walk (changed meanwhile): walk on from where the first half ended.
            tail = walk(agentId, second, head.headSequence() + 1, head.headHash(), end, Pacer.unpaced());
        }
        return reportOf(agentId, tail, head);
    }

    /** The report of a walk, or of {@code tail} continuing the walk {@code head} that passed every event. */
    private static ChainReport reportOf(String agentId, ChainVerifier tail, ChainVerifier head) {
        long verified = tail.verified() + (head == null ? 0 : head.verified());
        long erased = tail.erased() + (head == null ? 0 : head.erased());
        return new ChainReport(agentId, tail.failure().isEmpty(), verified, tail.headSequence(), tail.headHash(),
                tail.failure(), erased);
    }

    /**
     * Re-verifies every chain and returns how many are valid, walking the chains at the pace the
     * pacer sets. Every run also logs each problem the ledger has (an accepted loss of acknowledged
     * events stays in the log for as long as it lasts).
     */
    long verifyAll(Pacer pacer) throws IOException {
        for (String problem : health.problems()) {
            LOG.log(System.Logger.Level.ERROR, "ledger problem: " + problem);
        }
        TreeRepairs.report("by the periodic check", tree.checkUpperLevels(), health);
        long valid = 0;
        List<String> ids = new ArrayList<>();
        for (AgentState a : agents.all()) {
            ids.add(a.agentId());
        }
        ids.sort(Comparator.naturalOrder());
        for (String id : ids) {
            AgentState state = agents.get(id);
            if (state == null || verify(state, readableSize.getAsLong(), pacer).valid()) {
                valid++;
            }
        }
        return valid;
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
