package io.trailproof.core.merkle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Soundness of verification: any single-bit change to a hash, and any change of an index or size
 * that changes what the RFC verifier computes, makes a valid proof fail; malformed input fails
 * without throwing.
 *
 * <p>Sizes are not bound by the hashes: when (i, n) and (i, n') have the same path shape (e.g. leaf
 * 0 of 6 and of 7 leaves) the verifier does exactly the same hashing, so the proof is equally valid
 * for both. The size mutations therefore expect failure exactly when the shape differs.
 */
class MerkleProofsTest {
    private static final int MAX_SIZE = 1000;
    private static final Random RANDOM = new Random(20240917);
    private static final List<byte[]> LEAVES = Reference.randomLeaves(RANDOM, MAX_SIZE);
    private static final List<byte[]> LEAF_HASHES = Reference.leafHashes(LEAVES);
    private static final InMemorySubtreeHashes TREE = InMemorySubtreeHashes.ofLeafHashes(LEAF_HASHES);

    @Test
    void inclusionFailsUnderEverySingleMutation() {
        int sizeMutationsAccepted = 0;
        for (long[] c : cases(16, 60, false)) {
            long i = c[0];
            long n = c[1];
            byte[] leaf = LEAF_HASHES.get((int) i);
            byte[] root = TREE.root(n);
            List<byte[]> proof = TREE.inclusionProof(i, n);
            assertThat(MerkleProofs.verifyInclusion(leaf, i, n, proof, root)).isTrue();

            for (int e = 0; e < proof.size(); e++) {
                for (int bit : oneBitOfEachByte(e)) {
                    List<byte[]> bad = new ArrayList<>(proof);
                    bad.set(e, flip(proof.get(e), bit));
                    assertThat(MerkleProofs.verifyInclusion(leaf, i, n, bad, root))
                            .as("i=%d n=%d sibling %d bit %d", i, n, e, bit).isFalse();
                }
            }
            for (int bit = 0; bit < 256; bit++) {
                assertThat(MerkleProofs.verifyInclusion(flip(leaf, bit), i, n, proof, root)).isFalse();
                assertThat(MerkleProofs.verifyInclusion(leaf, i, n, proof, flip(root, bit))).isFalse();
            }
            for (long j : mutations(i)) {
                if (j >= 0 && j < n) {
                    assertThat(Reference.pathShape(j, n)).isNotEqualTo(Reference.pathShape(i, n));
                }
                assertThat(MerkleProofs.verifyInclusion(leaf, j, n, proof, root))
                        .as("i=%d->%d n=%d", i, j, n).isFalse();
            }
            for (long n2 : mutations(n)) {
                boolean sameShape = i < n2 && Reference.pathShape(i, n2).equals(Reference.pathShape(i, n));
                assertThat(MerkleProofs.verifyInclusion(leaf, i, n2, proof, root))
                        .as("i=%d n=%d->%d", i, n, n2).isEqualTo(sameShape);
                sizeMutationsAccepted += sameShape ? 1 : 0;
            }
            // Dropped, appended and doubled elements.
            if (!proof.isEmpty()) {
                assertThat(MerkleProofs.verifyInclusion(leaf, i, n, proof.subList(0, proof.size() - 1), root)).isFalse();
            }
            List<byte[]> longer = new ArrayList<>(proof);
            longer.add(root);
            assertThat(MerkleProofs.verifyInclusion(leaf, i, n, longer, root)).isFalse();
            List<byte[]> prefixed = new ArrayList<>(proof);
            prefixed.add(0, leaf);
            assertThat(MerkleProofs.verifyInclusion(leaf, i, n, prefixed, root)).isFalse();
        }
        // Documents the known RFC property rather than hiding it; the exact count is incidental.
        assertThat(sizeMutationsAccepted).isPositive();
    }

    @Test
    void consistencyFailsUnderEverySingleMutation() {
        for (long[] c : cases(16, 60, true)) {
            long m = c[0];
            long n = c[1];
            byte[] rootM = TREE.root(m);
            byte[] rootN = TREE.root(n);
            List<byte[]> proof = TREE.consistencyProof(m, n);
            assertThat(MerkleProofs.verifyConsistency(m, n, rootM, rootN, proof)).as("m=%d n=%d", m, n).isTrue();

            for (int e = 0; e < proof.size(); e++) {
                for (int bit : oneBitOfEachByte(e)) {
                    List<byte[]> bad = new ArrayList<>(proof);
                    bad.set(e, flip(proof.get(e), bit));
                    assertThat(MerkleProofs.verifyConsistency(m, n, rootM, rootN, bad))
                            .as("m=%d n=%d element %d bit %d", m, n, e, bit).isFalse();
                }
            }
            for (int bit = 0; bit < 256; bit++) {
                assertThat(MerkleProofs.verifyConsistency(m, n, flip(rootM, bit), rootN, proof)).isFalse();
                assertThat(MerkleProofs.verifyConsistency(m, n, rootM, flip(rootN, bit), proof)).isFalse();
            }
            for (long m2 : mutations(m)) {
                boolean sameShape = m2 > 0 && m2 < n
                        && Reference.consistencyShape(m2, n).equals(Reference.consistencyShape(m, n));
                assertThat(MerkleProofs.verifyConsistency(m2, n, rootM, rootN, proof))
                        .as("m=%d->%d n=%d", m, m2, n).isEqualTo(sameShape);
            }
            for (long n2 : mutations(n)) {
                boolean sameShape = m < n2
                        && Reference.consistencyShape(m, n2).equals(Reference.consistencyShape(m, n));
                assertThat(MerkleProofs.verifyConsistency(m, n2, rootM, rootN, proof))
                        .as("m=%d n=%d->%d", m, n, n2).isEqualTo(sameShape);
            }
            assertThat(MerkleProofs.verifyConsistency(m, n, rootN, rootM, proof)).as("swapped roots").isFalse();
            assertThat(MerkleProofs.verifyConsistency(m, n, rootM, rootN, proof.subList(0, proof.size() - 1)))
                    .isFalse();
            List<byte[]> longer = new ArrayList<>(proof);
            longer.add(rootN);
            assertThat(MerkleProofs.verifyConsistency(m, n, rootM, rootN, longer)).isFalse();
        }
    }

    @Test
    void malformedInputFailsWithoutThrowing() {
        byte[] leaf = LEAF_HASHES.get(3);
        byte[] root = TREE.root(10);
        List<byte[]> proof = TREE.inclusionProof(3, 10);
        assertThat(MerkleProofs.verifyInclusion(null, 3, 10, proof, root)).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, 3, 10, null, root)).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, 3, 10, proof, null)).isFalse();
        assertThat(MerkleProofs.verifyInclusion(new byte[31], 3, 10, proof, root)).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, 3, 10, proof, new byte[33])).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, 10, 10, proof, root)).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, -1, 10, proof, root)).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, 0, 0, List.of(), Rfc9162.emptyRoot())).isFalse();
        assertThat(MerkleProofs.verifyInclusion(leaf, 3, Long.MAX_VALUE, proof, root)).isFalse();
        List<byte[]> withShort = new ArrayList<>(proof);
        withShort.set(1, new byte[16]);
        assertThat(MerkleProofs.verifyInclusion(leaf, 3, 10, withShort, root)).isFalse();
        List<byte[]> withNull = new ArrayList<>(proof);
        withNull.set(1, null);
        assertThat(MerkleProofs.verifyInclusion(leaf, 3, 10, withNull, root)).isFalse();
        assertThat(MerkleProofs.rootFromInclusion(leaf, 3, 10, withShort)).isEmpty();
        // A single leaf is its own root with an empty path.
        assertThat(MerkleProofs.verifyInclusion(LEAF_HASHES.get(0), 0, 1, List.of(), TREE.root(1))).isTrue();

        byte[] r4 = TREE.root(4);
        List<byte[]> c = TREE.consistencyProof(4, 10);
        assertThat(MerkleProofs.verifyConsistency(4, 10, r4, root, null)).isFalse();
        assertThat(MerkleProofs.verifyConsistency(4, 10, null, root, c)).isFalse();
        assertThat(MerkleProofs.verifyConsistency(4, 10, r4, new byte[5], c)).isFalse();
        assertThat(MerkleProofs.verifyConsistency(10, 4, r4, root, c)).isFalse();
        assertThat(MerkleProofs.verifyConsistency(-4, 10, r4, root, c)).isFalse();
        assertThat(MerkleProofs.verifyConsistency(4, 10, r4, root, List.of())).isFalse();
        assertThat(MerkleProofs.verifyConsistency(4, Long.MAX_VALUE, r4, root, c)).isFalse();
        // Trivial cases: equal sizes need equal roots, the empty tree needs the empty root.
        assertThat(MerkleProofs.verifyConsistency(10, 10, root, root, List.of())).isTrue();
        assertThat(MerkleProofs.verifyConsistency(10, 10, r4, root, List.of())).isFalse();
        assertThat(MerkleProofs.verifyConsistency(10, 10, root, root, List.of(root))).isFalse();
        assertThat(MerkleProofs.verifyConsistency(0, 10, Rfc9162.emptyRoot(), root, List.of())).isTrue();
        assertThat(MerkleProofs.verifyConsistency(0, 10, r4, root, List.of())).isFalse();
        assertThat(MerkleProofs.verifyConsistency(0, 10, Rfc9162.emptyRoot(), root, List.of(r4))).isFalse();
    }

    @Test
    void typedResultsExplainFailures() {
        byte[] leaf = LEAF_HASHES.get(3);
        byte[] root = TREE.root(10);
        List<byte[]> proof = TREE.inclusionProof(3, 10);
        InclusionCheck ok = MerkleProofs.checkInclusion(leaf, 3, 10, proof, root);
        assertThat(ok.valid()).isTrue();
        assertThat(ok.computedRoot()).isEqualTo(root);
        assertThat(ok.reason()).isEmpty();
        InclusionCheck wrongRoot = MerkleProofs.checkInclusion(leaf, 3, 10, proof, TREE.root(9));
        assertThat(wrongRoot.valid()).isFalse();
        assertThat(wrongRoot.computedRoot()).isEqualTo(root);
        assertThat(wrongRoot.expectedRoot()).isEqualTo(TREE.root(9));
        assertThat(wrongRoot.reason()).contains("expected");
        assertThat(MerkleProofs.checkInclusion(leaf, 3, 10, proof.subList(0, 2), root).reason()).contains("shorter");

        ConsistencyCheck c = MerkleProofs.checkConsistency(4, 10, TREE.root(4), TREE.root(10), TREE.consistencyProof(4, 10));
        assertThat(c.valid()).isTrue();
        assertThat(c.computedRootN()).isEqualTo(root);
        ConsistencyCheck bad = MerkleProofs.checkConsistency(6, 10, TREE.root(5), root, TREE.consistencyProof(6, 10));
        assertThat(bad.valid()).isFalse();
        assertThat(bad.reason()).contains("old root");
    }

    /** All pairs (a, b) with a < b <= exhaustiveUpTo (a >= 1 when consistency), then random ones. */
    private static List<long[]> cases(int exhaustiveUpTo, int randomCount, boolean consistency) {
        List<long[]> out = new ArrayList<>();
        for (int b = 1; b <= exhaustiveUpTo; b++) {
            for (int a = consistency ? 1 : 0; a < b; a++) {
                out.add(new long[] {a, b});
            }
        }
        Random random = new Random(7 + exhaustiveUpTo + (consistency ? 1 : 0));
        for (int k = 0; k < randomCount; k++) {
            int b = 2 + random.nextInt(MAX_SIZE - 1);
            int a = consistency ? 1 + random.nextInt(b - 1) : random.nextInt(b);
            out.add(new long[] {a, b});
        }
        return out;
    }

    /** x + 1, x - 1 and x with each of its low 12 bits flipped, without x itself. */
    private static Set<Long> mutations(long x) {
        Set<Long> out = new LinkedHashSet<>();
        out.add(x + 1);
        out.add(x - 1);
        for (int bit = 0; bit < 12; bit++) {
            out.add(x ^ (1L << bit));
        }
        out.remove(x);
        return out;
    }

    /**
     * One bit of each of a hash's 32 bytes, at a position that moves with {@code element}, so that
     * every bit position of every byte is flipped in some proof element: a proof element enters the
     * verifier only through SHA-256 and a byte-wise comparison, so every byte must matter, and all
     * 256 bits of each element (eight times the hashing) find nothing more. The leaf and the roots
     * still have all 256 bits flipped.
     */
    private static int[] oneBitOfEachByte(int element) {
        int[] bits = new int[32];
        for (int b = 0; b < 32; b++) {
            bits[b] = b * 8 + (b + element) % 8;
        }
        return bits;
    }

    private static byte[] flip(byte[] hash, int bit) {
        byte[] copy = hash.clone();
        copy[bit / 8] ^= (byte) (1 << (bit % 8));
        return copy;
    }
}
