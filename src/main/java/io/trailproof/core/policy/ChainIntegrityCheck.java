package io.trailproof.core.policy;

import io.trailproof.core.chain.ChainFailure;
import io.trailproof.core.chain.ChainVerifier;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.merkle.SubtreeHashes;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Built-in {@code chain_integrity}: every chain verifies, checked by the same {@link ChainVerifier}
 * as {@code GET /v1/verify} (every hash recomputed, every link and sequence, and, when the tree is
 * given, every event's leaf), fed the agent's events in log order as the pass meets them. Each
 * chain that does not verify is one violation, named by the event where it first fails. It sees
 * whole chains whatever the time window. Memory: one verifier (a few fields) per agent.
 */
final class ChainIntegrityCheck extends RuleCheck {

    private final SubtreeHashes tree;
    private final Map<String, ChainVerifier> chains = new HashMap<>();

    /** @param tree the tree's node hashes for the leaf check, or null to skip that check */
    ChainIntegrityCheck(Rule rule, SubtreeHashes tree) {
        super(rule);
        this.tree = tree;
    }

    @Override
    boolean wholeChains() {
        return true;
    }

    /**
     * @param intact   the event's facts when its bytes were shown to hash to its {@code hash} in the
     *                 parse that read it, else null (the verifier then checks the bytes itself)
     * @param position the event's position in the log (its leaf index)
     */
    void accept(PolicyEvent e, IntactEvent intact, long position) {
        ChainVerifier v = chains.computeIfAbsent(e.agentId(),
                a -> new ChainVerifier(a, 1, EventFields.GENESIS_PREV_HASH));
        if (v.failure().isPresent()) {
            return;
        }
        Optional<ChainFailure> failure = intact != null ? v.next(intact, position, tree)
                : v.next(e.payload(), position, tree);
        if (failure.isPresent()) {
            violation(e, "the chain of agent " + e.agentId() + " does not verify: " + failure.get().message());
        }
    }

    @Override
    void accept(PolicyEvent e) {
        accept(e, null, e.logIndex());
    }
}
