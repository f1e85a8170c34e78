package io.trailproof.ledger;

import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.util.concurrent.Executor;

/**
 * The check of the tree's upper levels after a start, on the start's background executor: the one part of
 * opening the tree that grows with the log (one SHA-256 per event), so the start does not wait for
 * it. Until it is done the tree's readers wait ({@link MerkleNodeStore#openCheckingLater}) and
 * {@code GET /health} lists it under {@code loading}; writes go on. What it repairs is reported as
 * the check at open reported it ({@link TreeRepairs}); a check that fails is a problem on
 * {@code /health}, unless the ledger was closed under it.
 */
final class TreeCheckAtStart {

    private static final System.Logger LOG = System.getLogger(TreeCheckAtStart.class.getName());

    private TreeCheckAtStart() {
    }

    static void start(Executor background, MerkleNodeStore tree, LedgerHealth health) {
        background.execute(() -> {
            long started = System.nanoTime();
            try {
                TreeRepairs.report("at start", tree.checkAfterOpen(), health);
                LOG.log(System.Logger.Level.DEBUG, "checked the Merkle tree's upper levels of " + tree.size()
                        + " leaves in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            } catch (IOException | RuntimeException e) {
                if (!tree.isClosed()) {
                    health.report("the check of the Merkle tree's upper levels at start failed (" + e
                            + "); the periodic verification checks them again");
                }
            }
        });
    }
}
