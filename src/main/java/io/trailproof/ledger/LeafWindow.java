package io.trailproof.ledger;

import io.trailproof.core.merkle.SubtreeHashes;
import io.trailproof.store.MerkleNodeStore;

import java.util.Arrays;

/**
 * The tree's leaves for one pass over a chain in log order: reads them a window at a time (one read
 * for many neighbouring leaves) instead of one read per event. Single-threaded; other levels pass
 * straight through.
 */
final class LeafWindow implements SubtreeHashes {

    private static final int WINDOW = 512;
    private static final int HASH = 32;

    private final MerkleNodeStore tree;
    private final long leaves;
    private long start = -1;
    private byte[] window = new byte[0];

    LeafWindow(MerkleNodeStore tree, long leaves) {
        this.tree = tree;
        this.leaves = leaves;
    }

    @Override
    public byte[] get(int level, long index) {
        if (level != 0 || index >= leaves) {
            return tree.get(level, index);
        }
        if (start < 0 || index < start || index >= start + window.length / HASH) {
            start = index;
            window = tree.nodes(0, index, (int) Math.min(WINDOW, leaves - index));
        }
        int from = (int) (index - start) * HASH;
        return Arrays.copyOfRange(window, from, from + HASH);
    }
}
