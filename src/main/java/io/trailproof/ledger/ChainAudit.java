package io.trailproof.ledger;

import io.trailproof.background.Pacer;
import io.trailproof.core.chain.ChainVerifier;
import io.trailproof.core.chain.ErasureRecords;
import io.trailproof.core.event.EventFields;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Re-verifies chains from storage (every hash recomputed, every link, sequence and tree leaf
 * checked) up to the readable size, and records each outcome for {@code GET /v1/agents}.
 */
final class ChainAudit {

    private static final System.Logger LOG = System.getLogger(ChainAudit.class.getName());

    private final EventLog log;
    private final MerkleNodeStore tree;
    private final AgentTable agents;
    private final LongSupplier readableSize;
    private final Clock clock;
    private final LedgerHealth health;
    private final ErasureRecords erasures;

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
        ChainVerifier verifier = new ChainVerifier(agentId, 1, EventFields.GENESIS_PREV_HASH).withErasures(erasures);
        LeafWindow leaves = new LeafWindow(tree, end);
        long[] visited = {0};
        try {
            log.readEach(state.positionsBelow(end), (position, payload) -> {
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
        ChainReport report = new ChainReport(agentId, verifier.failure().isEmpty(), verifier.verified(),
                verifier.headSequence(), verifier.headHash(), verifier.failure(), verifier.erased());
        state.recordVerification(report.valid(), report.failure().map(f -> f.message()).orElse(null), clock.instant());
        if (!report.valid()) {
            LOG.log(System.Logger.Level.WARNING, "chain of agent " + agentId + " does not verify: "
                    + report.failure().get());
        }
        return report;
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
