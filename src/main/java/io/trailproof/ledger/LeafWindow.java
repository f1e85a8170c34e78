package io.trailproof.ledger;

import io.trailproof.core.merkle.SubtreeHashes;
import io.trailproof.store.MerkleNodeStore;

import java.util.Arrays;

/**
 * The tree's nodes for one pass over a chain in log order: the levels that live only on disk (the
 * leaves and the few above them) are read a window at a time, one read for many neighbouring nodes,
 * instead of one read per node asked for. Single-threaded; the levels held in memory pass straight
 * through.
 */
final class LeafWindow implements SubtreeHashes {

    private static final int WINDOW = 512;
    private static final int HASH = 32;

    private final MerkleNodeStore tree;
    private final long leaves;
    private final long[] start = new long[MerkleNodeStore.RESIDENT_FROM_LEVEL];
    private final byte[][] window = new byte[MerkleNodeStore.RESIDENT_FROM_LEVEL][];

    LeafWindow(MerkleNodeStore tree, long leaves) {
        this.tree = tree;
        this.leaves = leaves;
        Arrays.fill(start, -1);
        Arrays.fill(window, new byte[0]);
    }

    @Override
    public byte[] get(int level, long index) {
        if (level >= start.length || index >= (leaves >>> level)) {
            return tree.get(level, index);
        }
        byte[] w = window[level];
        long s = start[level];
        if (s < 0 || index < s || index >= s + w.length / HASH) {
            s = index;
            w = tree.nodes(level, index, (int) Math.min(WINDOW, (leaves >>> level) - index));
            start[level] = s;
            window[level] = w;
        }
        int from = (int) (index - s) * HASH;
        return Arrays.copyOfRange(w, from, from + HASH);
    }
}
