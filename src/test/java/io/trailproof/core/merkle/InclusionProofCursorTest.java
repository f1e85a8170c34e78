package io.trailproof.core.merkle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The cursor answers exactly what {@link MerkleTree#inclusionProof} answers, in any order of leaves. */
class InclusionProofCursorTest {
    private static final int LEAVES = 5000;

    private final InMemorySubtreeHashes tree =
            InMemorySubtreeHashes.ofLeafHashes(Reference.leafHashes(Reference.randomLeaves(new Random(17), LEAVES)));

    @Test
    void everyLeafInOrderOfEverySmallSize() {
        for (int n = 1; n <= 130; n++) {
            InclusionProofCursor cursor = new InclusionProofCursor(tree, n);
            for (int i = 0; i < n; i++) {
                assertSame(cursor.proof(i), i, n);
            }
        }
    }

    @Test
    void ascendingWalksWithGapsOverRandomSizes() {
        Random r = new Random(42);
        for (int round = 0; round < 300; round++) {
            int n = 1 + r.nextInt(LEAVES);
            int maxStep = 1 + r.nextInt(round % 3 == 0 ? 2 : 40);
            InclusionProofCursor cursor = new InclusionProofCursor(tree, n);
            for (long i = r.nextInt(Math.min(n, 10)); i < n; i += 1 + r.nextInt(maxStep)) {
                assertSame(cursor.proof(i), i, n);
            }
        }
    }

    @Test
    void anyOrderAndRepeatsAreAnsweredToo() {
        Random r = new Random(7);
        for (int round = 0; round < 50; round++) {
            int n = 1 + r.nextInt(LEAVES);
            InclusionProofCursor cursor = new InclusionProofCursor(tree, n);
            for (int q = 0; q < 200; q++) {
                long i = r.nextInt(4) == 0 ? n - 1 : r.nextInt(n);
                assertSame(cursor.proof(i), i, n);
                assertSame(cursor.proof(i), i, n);
            }
        }
    }

    @Test
    void leavesOutsideTheTreeAreRefused() {
        InclusionProofCursor cursor = new InclusionProofCursor(tree, 10);
        assertThatThrownBy(() -> cursor.proof(10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cursor.proof(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InclusionProofCursor(tree, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The same hashes in the same order. Compared directly first: an AssertJ assertion per proof cost
     * most of this class's time over its some hundred thousand proofs; it still reports any difference.
     */
    private void assertSame(List<byte[]> proof, long leaf, long size) {
        List<byte[]> expected = MerkleTree.inclusionProof(tree, leaf, size);
        if (!equalHashes(proof, expected)) {
            assertThat(proof).as("leaf %d of %d", leaf, size).containsExactlyElementsOf(expected);
        }
    }

    private static boolean equalHashes(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }
}
