package io.trailproof.core.merkle;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Many RFC 9162 inclusion proofs against one tree size, each exactly what
 * {@link MerkleTree#inclusionProof} answers, for a caller that asks about neighbouring leaves in turn
 * (an export walks a chain in log order). Neighbouring leaves share the upper part of their audit
 * paths, so each answer reuses the siblings of the previous one down to where the two paths part and
 * reads or computes only the rest: a few nodes per proof instead of one per level, and the hashing
 * of the tree's ragged right edge once instead of once per proof.
 *
 * <p>Any order of leaves is answered correctly; ascending order is the cheap one. Not thread-safe.
 * The returned hashes are shared with later answers and must not be modified.
 */
public final class InclusionProofCursor {

    private final SubtreeHashes nodes;
    private final long size;
    // Top-down along the last path: at depth d the leaf went right (right[d]) or left of the split of
    // its subtree, and sibling[d] is the other side's hash. The turns above depth d fix the subtree at
    // depth d, so a leaf taking the same turns down to d has the same siblings down to d.
    private final boolean[] right;
    private final byte[][] sibling;
    // Depths [0, known) describe a path still valid for the tree; deeper entries are stale.
    private int known;

    /**
     * @param nodes the tree's perfect-subtree hashes; must hold at least {@code size} leaves
     * @param size  the tree size every proof is against, at least 1
     */
    public InclusionProofCursor(SubtreeHashes nodes, long size) {
        this.nodes = Objects.requireNonNull(nodes, "nodes");
        if (size < 1) {
            throw new IllegalArgumentException("tree size must be >= 1, was " + size);
        }
        this.size = size;
        right = new boolean[64];
        sibling = new byte[64][];
    }

    /** The tree size every proof is against. */
    public long size() {
        return size;
    }

    /**
     * PATH(leafIndex, D[size]): the audit path, nearest sibling first, equal to
     * {@link MerkleTree#inclusionProof}{@code (nodes, leafIndex, size)}.
     *
     * @throws IllegalArgumentException unless {@code 0 <= leafIndex < size}
     */
    public List<byte[]> proof(long leafIndex) {
        if (leafIndex < 0 || leafIndex >= size) {
            throw new IllegalArgumentException(
                    "leaf index " + leafIndex + " is not in a tree of size " + size);
        }
        long s = 0;
        long n = size;
        int d = 0;
        // Reuse the previous path while this leaf takes the same turns.
        while (d < known && n > 1) {
            long k = MerkleTree.split(n);
            boolean goesRight = leafIndex - s >= k;
            if (goesRight != right[d]) {
                break;
            }
            if (goesRight) {
                s += k;
                n -= k;
            } else {
                n = k;
            }
            d++;
        }
        known = d;
        while (n > 1) {
            long k = MerkleTree.split(n);
            boolean goesRight = leafIndex - s >= k;
            right[d] = goesRight;
            if (goesRight) {
                sibling[d] = MerkleTree.subtree(nodes, s, k);
                s += k;
                n -= k;
            } else {
                sibling[d] = MerkleTree.subtree(nodes, s + k, n - k);
                n = k;
            }
            d++;
        }
        known = d;
        List<byte[]> path = new ArrayList<>(d);
        for (int i = d - 1; i >= 0; i--) {
            path.add(sibling[i]);
        }
        return path;
    }
}
