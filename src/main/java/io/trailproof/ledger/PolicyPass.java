package io.trailproof.ledger;

import io.trailproof.core.policy.Policy;
import io.trailproof.core.policy.PolicyEngine;
import io.trailproof.core.policy.PolicyReport;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * Feeds the readable log to a {@link PolicyEngine} in one sequential read (CONTRACT 16), with the
 * tree's leaves read a window at a time for {@code chain_integrity}: memory is the engine's state
 * and a window of leaves, whatever the length of the log.
 */
final class PolicyPass {

    private PolicyPass() {
    }

    /** Checks the events below {@code size} (a readable size taken by the caller, also the tree's). */
    static PolicyReport run(EventLog log, MerkleNodeStore tree, long size, List<Policy> policies, String agentId,
                            Instant since, Instant until) throws IOException {
        PolicyEngine engine = new PolicyEngine(policies, agentId, since, until, new LeafWindow(tree, size));
        log.scan(0, size, engine::accept);
        return engine.finish();
    }
}
