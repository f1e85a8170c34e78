package io.trailproof.core.merkle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * RFC 9162 section 2.1 tree algorithms (MTH, PATH, PROOF) computed from stored perfect-subtree
 * hashes, so that each costs O(log n) node reads instead of O(n) leaf reads (src/site/concepts.md#the-merkle-tree).
 *
 * <p>The size passed in may be any size the tree has had: nodes are append-only, so a larger tree
 * answers for every earlier size. The caller guarantees {@code nodes} holds at least that many
 * leaves; asking beyond is the caller's bug and surfaces as whatever {@link SubtreeHashes#get}
 * does for a missing node.
 */
public final class MerkleTree {
    private MerkleTree() {}

    /** MTH(D[size]): the root of the first {@code size} leaves; the empty root for 0. */
    public static byte[] root(SubtreeHashes nodes, long size) {
        Objects.requireNonNull(nodes, "nodes");
        if (size < 0) {
            throw new IllegalArgumentException("tree size must be >= 0, was " + size);
        }
        return size == 0 ? Rfc9162.emptyRoot() : subtree(nodes, 0, size);
    }

    /**
     * PATH(leafIndex, D[size]) of RFC 9162 2.1.3.1: the audit path, nearest sibling first.
     *
     * @throws IllegalArgumentException unless {@code 0 <= leafIndex < size}
     */
    public static List<byte[]> inclusionProof(SubtreeHashes nodes, long leafIndex, long size) {
        Objects.requireNonNull(nodes, "nodes");
        if (leafIndex < 0 || leafIndex >= size) {
            throw new IllegalArgumentException(
                    "leaf index " + leafIndex + " is not in a tree of size " + size);
        }
        List<byte[]> topDown = new ArrayList<>(64 - Long.numberOfLeadingZeros(size));
        long start = 0;
        long len = size;
        long m = leafIndex;
        while (len > 1) {
            long k = split(len);
            if (m < k) {
                topDown.add(subtree(nodes, start + k, len - k));
                len = k;
            } else {
                topDown.add(subtree(nodes, start, k));
                start += k;
                m -= k;
                len -= k;
            }
        }
        Collections.reverse(topDown);
        return topDown;
    }

    /**
     * PROOF(m, D[n]) of RFC 9162 2.1.4.1, in the RFC's order. Empty when {@code m == 0} (every tree
     * extends the empty one) or {@code m == n}.
     *
     * @throws IllegalArgumentException unless {@code 0 <= m <= n}
     */
    public static List<byte[]> consistencyProof(SubtreeHashes nodes, long m, long n) {
        Objects.requireNonNull(nodes, "nodes");
        if (m < 0 || m > n) {
            throw new IllegalArgumentException(
                    "consistency needs 0 <= m <= n, was m=" + m + ", n=" + n);
        }
        if (m == 0 || m == n) {
            return new ArrayList<>();
        }
        List<byte[]> topDown = new ArrayList<>(64 - Long.numberOfLeadingZeros(n) + 1);
        long start = 0;
        long len = n;
        long mm = m;
        // Stays true while the old tree is a left-edge subtree whose root the verifier already has.
        boolean oldRootKnown = true;
        while (mm != len) {
            long k = split(len);
            if (mm <= k) {
                topDown.add(subtree(nodes, start + k, len - k));
                len = k;
            } else {
                topDown.add(subtree(nodes, start, k));
                start += k;
                mm -= k;
                len -= k;
                oldRootKnown = false;
            }
        }
        if (!oldRootKnown) {
            topDown.add(subtree(nodes, start, len));
        }
        Collections.reverse(topDown);
        return topDown;
    }

    /** The largest power of two strictly smaller than {@code n}; RFC 9162's split point, n >= 2. */
    static long split(long n) {
        return Long.highestOneBit(n - 1);
    }

    /**
     * MTH(D[start:start+len]) for a subtree that occurs in the RFC tree, len >= 1. Such a subtree
     * starts at a multiple of the smallest power of two >= len, so a power-of-two length is one
     * stored node, and any other length is its binary decomposition into perfect nodes folded from
     * the right, as the recursive split would combine them.
     */
    static byte[] subtree(SubtreeHashes nodes, long start, long len) {
        if (Long.bitCount(len) == 1) {
            int level = Long.numberOfTrailingZeros(len);
            return nodes.get(level, start >>> level);
        }
        byte[][] parts = new byte[Long.bitCount(len)][];
        long pos = start;
        long rest = len;
        for (int i = 0; rest != 0; i++) {
            long width = Long.highestOneBit(rest);
            int level = Long.numberOfTrailingZeros(width);
            parts[i] = nodes.get(level, pos >>> level);
            pos += width;
            rest -= width;
        }
        byte[] acc = parts[parts.length - 1];
        for (int i = parts.length - 2; i >= 0; i--) {
            acc = Rfc9162.nodeHash(parts[i], acc);
        }
        return acc;
    }
}
