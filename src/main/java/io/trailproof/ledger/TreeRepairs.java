package io.trailproof.ledger;

import java.util.List;

/**
 * What the ledger does with the tree store's repairs of its upper levels: each is
 * logged as a warning, since the derived file was wrong and has been rewritten from level 0 before any
 * root was served from it. A repair where every node above the first wrong one differed too means the
 * leaves under it (level 0, or the log and level 0 together) changed after the nodes were written: that
 * is possible tampering, not a damaged derived file, so it is also a standing {@link LedgerHealth} problem.
 */
final class TreeRepairs {

    private static final System.Logger LOG = System.getLogger(TreeRepairs.class.getName());
    /** The store's wording for "the leaves changed, not the upper node". */
    private static final String LEAVES_CHANGED = "every node above it";

    private TreeRepairs() {
    }

    static void report(String when, List<String> repairs, LedgerHealth health) {
        for (String repair : repairs) {
            String sentence = "Merkle tree repaired " + when + ": " + repair;
            if (repair.contains(LEAVES_CHANGED)) {
                health.report(sentence);
            } else {
                LOG.log(System.Logger.Level.WARNING, sentence);
            }
        }
    }
}
