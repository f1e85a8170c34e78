package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.store.MerkleNodeStore;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whatever the walk (a scan, a chain holding one leaf in 3, 200 or 5,000, siblings asked for as a
 * proof does, a walk that jumps back), {@link LeafWindow} answers exactly the nodes the tree holds,
 * on the levels it reads from the files and on those held in memory.
 */
class LeafWindowTest {

    @TempDir
    Path dir;

    @Test
    void everyWalkSeesExactlyTheStoredNodes() throws Exception {
        try (MerkleNodeStore tree = MerkleNodeStore.open(dir, 0)) {
            int leaves = 20_000;
            for (int i = 0; i < leaves; i++) {
                tree.append(Rfc9162.leafHash(new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16)}));
            }
            Random random = new Random(3);
            for (int stride : new int[] {1, 3, 129, 200, 5000}) {
                LeafWindow window = new LeafWindow(tree, leaves);
                for (long i = random.nextInt(stride); i < leaves; i += stride) {
                    assertThat(window.get(0, i)).as("leaf %d, stride %d", i, stride).isEqualTo(tree.get(0, i));
                    for (int level = 0; level < 5; level++) {
                        long sibling = (i >>> level) ^ 1;
                        if (sibling < leaves >>> level) {
                            assertThat(window.get(level, sibling)).as("level %d node %d", level, sibling)
                                    .isEqualTo(tree.get(level, sibling));
                        }
                    }
                }
            }
            LeafWindow window = new LeafWindow(tree, leaves);
            for (int t = 0; t < 2000; t++) {
                long i = t % 3 == 0 ? random.nextInt(leaves) : Math.min(leaves - 1, t * 9L);
                assertThat(window.get(0, i)).isEqualTo(tree.get(0, i));
            }
        }
    }
}
