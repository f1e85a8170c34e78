package io.trailproof.core.merkle;

/**
 * Read access to the hashes of the perfect (complete) subtrees of an RFC 9162 tree.
 *
 * <p>The node at {@code level} k and {@code index} i is the root of the perfect subtree over the
 * leaves {@code [i * 2^k, (i + 1) * 2^k)}; level 0 holds the RFC 9162 leaf hashes
 * (SHA-256(0x00 || leaf)). A caller asks only for nodes that exist, i.e. whose last leaf is below
 * the size the tree has grown to. Implementations may keep these in memory or on disk; the
 * algorithms in {@link MerkleTree} read O(log n) of them per root or proof.
 */
public interface SubtreeHashes {
    /** The 32-byte hash of the perfect subtree at {@code level}, {@code index}. */
    byte[] get(int level, long index);
}
