package io.trailproof.ledger;

/**
 * The root of the tree at {@code treeSize} recomputed from the stored events themselves (each
 * event's hash recomputed from its fields), and the first event, if any, that no longer hashes to
 * its leaf in the stored tree: the evidence of tampering after the fact.
 *
 * @param firstAlteredIndex log index of the first such event, or -1 when there is none
 * @param firstAlteredId    that event's id as stored (null when none or unreadable)
 * @param problem           what is wrong with it (null when none)
 */
public record RootRecomputation(long treeSize, byte[] root, long firstAlteredIndex, String firstAlteredId,
                                String problem) {
    public boolean altered() {
        return firstAlteredIndex >= 0;
    }
}
