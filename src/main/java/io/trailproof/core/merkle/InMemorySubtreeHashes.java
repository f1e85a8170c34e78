package io.trailproof.core.merkle;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A growable in-memory tree of perfect-subtree hashes, for tests and the offline verifier.
 * Not thread-safe. Limited to what fits in one Java array per level (about 67 million leaves).
 */
public final class InMemorySubtreeHashes implements SubtreeHashes {
    private final List<byte[]> levels = new ArrayList<>();
    private final List<Integer> counts = new ArrayList<>();
    private long size;

    /** A tree holding the given RFC 9162 leaf hashes, in order. */
    public static InMemorySubtreeHashes ofLeafHashes(List<byte[]> leafHashes) {
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        for (byte[] leafHash : leafHashes) {
            tree.append(leafHash);
        }
        return tree;
    }

    /** Number of leaves. */
    public long size() {
        return size;
    }

    /** Appends one RFC 9162 leaf hash (32 bytes) and every parent it completes. */
    public void append(byte[] leafHash) {
        for (MerkleNode node : MerkleAppender.newNodes(this, size, leafHash)) {
            put(node);
        }
        size++;
    }

    /** MTH of the first {@code treeSize} leaves. */
    public byte[] root(long treeSize) {
        requireSize(treeSize);
        return MerkleTree.root(this, treeSize);
    }

    /** The root of all leaves. */
    public byte[] root() {
        return MerkleTree.root(this, size);
    }

    /** PATH(leafIndex, D[treeSize]), see {@link MerkleTree#inclusionProof}. */
    public List<byte[]> inclusionProof(long leafIndex, long treeSize) {
        requireSize(treeSize);
        return MerkleTree.inclusionProof(this, leafIndex, treeSize);
    }

    /** PROOF(m, D[n]), see {@link MerkleTree#consistencyProof}. */
    public List<byte[]> consistencyProof(long m, long n) {
        requireSize(n);
        return MerkleTree.consistencyProof(this, m, n);
    }

    @Override
    public byte[] get(int level, long index) {
        if (level < 0 || level >= levels.size() || index < 0 || index >= counts.get(level)) {
            throw new IllegalArgumentException(
                    "no node at level " + level + ", index " + index + " in a tree of " + size + " leaves");
        }
        int from = Math.toIntExact(index * Rfc9162.HASH_LENGTH);
        return Arrays.copyOfRange(levels.get(level), from, from + Rfc9162.HASH_LENGTH);
    }

    private void put(MerkleNode node) {
        if (node.level() == levels.size()) {
            levels.add(new byte[Rfc9162.HASH_LENGTH * 16]);
            counts.add(0);
        }
        int count = counts.get(node.level());
        if (node.index() != count) {
            throw new IllegalStateException("node out of order at level " + node.level());
        }
        byte[] data = levels.get(node.level());
        int end = Math.multiplyExact(count + 1, Rfc9162.HASH_LENGTH);
        if (end > data.length) {
            data = Arrays.copyOf(data, Math.max(end, (int) Math.min(Integer.MAX_VALUE - 8, data.length * 2L)));
            levels.set(node.level(), data);
        }
        System.arraycopy(node.hash(), 0, data, count * Rfc9162.HASH_LENGTH, Rfc9162.HASH_LENGTH);
        counts.set(node.level(), count + 1);
    }

    private void requireSize(long treeSize) {
        if (treeSize < 0 || treeSize > size) {
            throw new IllegalArgumentException("tree size " + treeSize + " is not in [0, " + size + "]");
        }
    }
}
