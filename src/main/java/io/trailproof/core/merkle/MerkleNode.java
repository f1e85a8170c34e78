package io.trailproof.core.merkle;

/**
 * One perfect-subtree hash: the root of the leaves {@code [index * 2^level, (index + 1) * 2^level)}
 * (see {@link SubtreeHashes}).
 */
public record MerkleNode(int level, long index, byte[] hash) {}
