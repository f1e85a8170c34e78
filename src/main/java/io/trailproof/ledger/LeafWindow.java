package io.trailproof.ledger;

import io.trailproof.core.merkle.SubtreeHashes;
import io.trailproof.store.MerkleNodeStore;

import java.util.Arrays;

/**
 * The tree's nodes for one pass over a chain in log order: the levels that live only on disk (the
 * leaves and the few above them) are read a window at a time, one read for many neighbouring nodes,
 * instead of one read per node asked for. Single-threaded; the levels held in memory pass straight
 * through.
 *
 * <p>The window follows the walk: where the nodes asked for lie close together (a scan of the log,
 * or a chain that holds most of its events) a miss reads {@value #WINDOW} nodes; where they lie far
 * apart (one agent's events among many agents'), a window would be read for one node, so a miss
 * reads the {@value #SPARSE_NODES} aligned nodes around it (the node and its sibling, which a proof
 * asks for next).
 */
final class LeafWindow implements SubtreeHashes {

    /** Nodes a miss reads when the walk is dense. */
    private static final int WINDOW = 512;
    /** Nodes a miss reads when the walk is sparse: a power of two, so the block holds each node's sibling. */
    private static final int SPARSE_NODES = 8;
    /**
     * A node asked for at most this many nodes after the one before it (on the same level) makes the
     * walk dense there: a window then serves at least {@code WINDOW / DENSE_GAP} nodes, and copying
     * the nodes between them costs less than what it saves. Not more: the written nodes are read
     * through memory maps, where a read costs a copy and no system call, so a window that served
     * one node in 50 (an agent with one event in 50) copied 16 KB for every ten nodes it served.
     */
    private static final long DENSE_GAP = 16;
    private static final int HASH = 32;

    private final MerkleNodeStore tree;
    private final long leaves;
    private final long[] start = new long[MerkleNodeStore.RESIDENT_FROM_LEVEL];
    private final long[] last = new long[MerkleNodeStore.RESIDENT_FROM_LEVEL];
    private final byte[][] window = new byte[MerkleNodeStore.RESIDENT_FROM_LEVEL][];

    LeafWindow(MerkleNodeStore tree, long leaves) {
        this.tree = tree;
        this.leaves = leaves;
        Arrays.fill(start, -1);
        Arrays.fill(last, Long.MIN_VALUE / 2);
        Arrays.fill(window, new byte[0]);
    }

    @Override
    public byte[] get(int level, long index) {
        if (level >= start.length || index >= (leaves >>> level)) {
            return tree.get(level, index);
        }
        byte[] w = window[level];
        long s = start[level];
        boolean dense = Math.abs(index - last[level]) <= DENSE_GAP;
        last[level] = index;
        if (s < 0 || index < s || index >= s + w.length / HASH) {
            s = dense ? index & ~1L : index & -SPARSE_NODES;
            w = tree.nodes(level, s, (int) Math.min(dense ? WINDOW : SPARSE_NODES, (leaves >>> level) - s));
            start[level] = s;
            window[level] = w;
        }
        int from = (int) (index - s) * HASH;
        return Arrays.copyOfRange(w, from, from + HASH);
    }
}
