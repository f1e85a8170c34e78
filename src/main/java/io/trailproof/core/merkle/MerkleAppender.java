package io.trailproof.core.merkle;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Incremental maintenance of the perfect-subtree hashes: which nodes come into existence when one
 * leaf is appended. Stores apply the result, so the tree is never rebuilt on request (src/site/concepts.md#the-merkle-tree).
 */
public final class MerkleAppender {
    private MerkleAppender() {}

    /**
     * The nodes created by appending leaf number {@code size} to a tree of {@code size} leaves, in
     * order of increasing level: the leaf itself at level 0, then every parent completed by it.
     * Reads only left siblings that already exist in {@code nodes} (at most log2(size) reads).
     *
     * @param leafHash the RFC 9162 leaf hash (32 bytes) of the new leaf
     * @throws IllegalArgumentException if {@code size} is negative or the hash is not 32 bytes
     */
    public static List<MerkleNode> newNodes(SubtreeHashes nodes, long size, byte[] leafHash) {
        Objects.requireNonNull(nodes, "nodes");
        if (size < 0 || size == Long.MAX_VALUE) {
            throw new IllegalArgumentException("tree size out of range: " + size);
        }
        if (!Rfc9162.isHash(leafHash)) {
            throw new IllegalArgumentException("leaf hash must be " + Rfc9162.HASH_LENGTH + " bytes");
        }
        List<MerkleNode> created = new ArrayList<>(Long.numberOfTrailingZeros(~size) + 1);
        int level = 0;
        long index = size;
        byte[] hash = leafHash.clone();
        created.add(new MerkleNode(level, index, hash));
        // An odd index completes its parent: the left sibling at index - 1 already exists.
        while ((index & 1) == 1) {
            hash = Rfc9162.nodeHash(nodes.get(level, index - 1), hash);
            level++;
            index >>>= 1;
            created.add(new MerkleNode(level, index, hash));
        }
        return created;
    }
}
