package io.trailproof.core.merkle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The O(log n) algorithms against the naive {@link Reference}, exhaustively over small trees. */
class MerkleTreeTest {
    /**
     * Every tree of up to 130 leaves: every shape of a tree up to eight levels deep (a full tree of 128
     * leaves, and the two after it that start the ninth level). The reference recomputes whole subtrees,
     * so the cost grows with the cube of this bound.
     */
    private static final int MAX_INCLUSION_SIZE = 130;
    private static final int MAX_CONSISTENCY_SIZE = 100;

    private final List<byte[]> leaves = Reference.randomLeaves(new Random(9162), MAX_INCLUSION_SIZE);
    private final List<byte[]> leafHashes = Reference.leafHashes(leaves);

    @Test
    void rootMatchesReferenceWhileGrowingAndForEveryEarlierSize() {
        InMemorySubtreeHashes tree = new InMemorySubtreeHashes();
        for (int n = 0; n <= MAX_INCLUSION_SIZE; n++) {
            assertThat(tree.root()).as("root while growing, n=%d", n).isEqualTo(Reference.mth(leaves.subList(0, n)));
            if (n < MAX_INCLUSION_SIZE) {
                tree.append(leafHashes.get(n));
            }
        }
        for (int n = 0; n <= MAX_INCLUSION_SIZE; n++) {
            assertThat(MerkleTree.root(tree, n)).as("earlier root, n=%d", n)
                    .isEqualTo(Reference.mth(leaves.subList(0, n)));
        }
    }

    @Test
    void inclusionProofsMatchReferenceAndVerifyForEveryLeafOfEverySize() {
        InMemorySubtreeHashes tree = InMemorySubtreeHashes.ofLeafHashes(leafHashes);
        int checked = 0;
        for (int n = 0; n <= MAX_INCLUSION_SIZE; n++) {
            List<byte[]> prefix = leaves.subList(0, n);
            byte[] root = Reference.mth(prefix);
            for (int i = 0; i < n; i++) {
                List<byte[]> proof = MerkleTree.inclusionProof(tree, i, n);
                assertThat(proof).as("i=%d n=%d", i, n).containsExactlyElementsOf(Reference.path(i, prefix));
                assertThat(MerkleProofs.verifyInclusion(leafHashes.get(i), i, n, proof, root))
                        .as("i=%d n=%d", i, n).isTrue();
                assertThat(MerkleProofs.rootFromInclusion(leafHashes.get(i), i, n, proof)).hasValue(root);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(MAX_INCLUSION_SIZE * (MAX_INCLUSION_SIZE + 1) / 2);
    }

    @Test
    void consistencyProofsMatchReferenceAndVerifyForEveryPairOfSizes() {
        InMemorySubtreeHashes tree = InMemorySubtreeHashes.ofLeafHashes(leafHashes);
        for (int n = 0; n <= MAX_CONSISTENCY_SIZE; n++) {
            byte[] rootN = Reference.mth(leaves.subList(0, n));
            for (int m = 0; m <= n; m++) {
                List<byte[]> proof = MerkleTree.consistencyProof(tree, m, n);
                assertThat(proof).as("m=%d n=%d", m, n)
                        .containsExactlyElementsOf(Reference.proof(m, leaves.subList(0, n)));
                assertThat(MerkleProofs.verifyConsistency(m, n, Reference.mth(leaves.subList(0, m)), rootN, proof))
                        .as("m=%d n=%d", m, n).isTrue();
            }
        }
    }

    @Test
    void appenderCreatesTheLeafAndEveryParentItCompletes() {
        InMemorySubtreeHashes tree = InMemorySubtreeHashes.ofLeafHashes(leafHashes.subList(0, 7));
        List<MerkleNode> created = MerkleAppender.newNodes(tree, 7, leafHashes.get(7));
        assertThat(created).extracting(MerkleNode::level).containsExactly(0, 1, 2, 3);
        assertThat(created).extracting(MerkleNode::index).containsExactly(7L, 3L, 1L, 0L);
        assertThat(created.get(3).hash()).isEqualTo(Reference.mth(leaves.subList(0, 8)));
        assertThat(MerkleAppender.newNodes(tree, 6, leafHashes.get(6))).hasSize(1);
    }

    /** Node reads stay logarithmic even for astronomically large trees (the contract's O(log n)). */
    @Test
    void everyOperationReadsLogarithmicallyManyNodes() {
        Random random = new Random(42);
        for (int trial = 0; trial < 2000; trial++) {
            long n = 1 + (random.nextLong() >>> (1 + random.nextInt(62)));
            long i = Math.floorMod(random.nextLong(), n);
            long m = Math.floorMod(random.nextLong(), n + 1);
            int log = 64 - Long.numberOfLeadingZeros(n);
            CountingNodes nodes = new CountingNodes();
            MerkleTree.root(nodes, n);
            assertThat(nodes.reads).as("root n=%d", n).isLessThanOrEqualTo(log);
            nodes.reads = 0;
            assertThat(MerkleTree.inclusionProof(nodes, i, n)).hasSizeLessThanOrEqualTo(log);
            assertThat(nodes.reads).as("path i=%d n=%d", i, n).isLessThanOrEqualTo(2 * log);
            nodes.reads = 0;
            assertThat(MerkleTree.consistencyProof(nodes, m, n)).hasSizeLessThanOrEqualTo(log + 1);
            assertThat(nodes.reads).as("proof m=%d n=%d", m, n).isLessThanOrEqualTo(2 * log + 1);
        }
    }

    @Test
    void rejectsArgumentsOutOfRange() {
        InMemorySubtreeHashes tree = InMemorySubtreeHashes.ofLeafHashes(leafHashes.subList(0, 10));
        assertThatThrownBy(() -> MerkleTree.root(tree, -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> MerkleTree.inclusionProof(tree, 10, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaf index 10");
        assertThatThrownBy(() -> MerkleTree.inclusionProof(tree, -1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MerkleTree.inclusionProof(tree, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MerkleTree.consistencyProof(tree, 5, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("m=5, n=4");
        assertThatThrownBy(() -> MerkleTree.consistencyProof(tree, -1, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> tree.root(11)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> tree.append(new byte[31])).isInstanceOf(IllegalArgumentException.class);
        assertThat(MerkleTree.consistencyProof(tree, 0, 10)).isEmpty();
        assertThat(MerkleTree.consistencyProof(tree, 10, 10)).isEmpty();
    }

    /** Any node exists; its hash is derived from its coordinates. Counts reads. */
    private static final class CountingNodes implements SubtreeHashes {
        int reads;

        @Override
        public byte[] get(int level, long index) {
            reads++;
            return Rfc9162.leafHash(ByteBuffer.allocate(12).putInt(level).putLong(index).array());
        }
    }
}
