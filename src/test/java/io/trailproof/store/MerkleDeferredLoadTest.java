package io.trailproof.store;

import io.trailproof.core.merkle.Reference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What opening the tree at start reads (src/site/storage.md#what-a-start-reads): with the check left
 * for later, no node at all, only the level files' sizes, so the open holds the same memory for any
 * size of tree; the resident levels' copies are loaded by the check after the open, which appends,
 * truncations and readers that ran meanwhile leave exactly as a tree opened at once would be. Roots
 * come from {@link Reference}.
 */
class MerkleDeferredLoadTest {
    private static final int CHUNK = 1024;

    @TempDir
    Path tmp;

    private static void fill(Path dir, List<byte[]> leafHashes) throws IOException {
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0)) {
            for (byte[] leaf : leafHashes) {
                store.append(leaf);
            }
            store.force();
        }
    }

    private static int levels(long leaves) {
        return 64 - Long.numberOfLeadingZeros(leaves);
    }

    @Test
    void anOpenCheckingLaterHoldsAtMostOneChunkPerLevelWhateverTheSizeOfTheTree() throws IOException {
        for (int n : new int[] {3_000, 300_000}) {
            Path dir = tmp.resolve("t" + n);
            List<byte[]> values = Reference.randomLeaves(new Random(n), n);
            fill(dir, Reference.leafHashes(values));
            try (MerkleNodeStore opened = MerkleNodeStore.openCheckingLater(dir, n)) {
                // One unwritten chunk per level, however many nodes the files hold.
                assertThat(opened.heldBytes()).isLessThanOrEqualTo((long) levels(n) * CHUNK * 32);
                opened.checkAfterOpen();
                // The check loaded the resident levels (from level 3 up: n / 8 nodes and their parents).
                assertThat(opened.heldBytes()).isGreaterThanOrEqualTo((n / 8) * 32L);
                assertThat(opened.root(n)).isEqualTo(Reference.mth(values));
                assertThat(opened.root(n / 3)).isEqualTo(Reference.mth(values.subList(0, n / 3)));
            }
        }
    }

    @Test
    void appendsAndTruncationsBeforeTheLoadLeaveTheTreeAsAnOpenAtOnceWould() throws IOException {
        int n = 5_000;
        List<byte[]> values = Reference.randomLeaves(new Random(42), n + 3_000);
        List<byte[]> leaves = Reference.leafHashes(values);
        Path dir = tmp.resolve("t");
        fill(dir, leaves.subList(0, n));
        try (MerkleNodeStore store = MerkleNodeStore.openCheckingLater(dir, n, 16, 2)) {
            for (int i = n; i < n + 1_000; i++) {
                store.append(leaves.get(i));
            }
            store.truncate(n - 700);
            List<byte[]> otherValues = Reference.randomLeaves(new Random(43), 2_000);
            for (byte[] leaf : Reference.leafHashes(otherValues)) {
                store.append(leaf);
            }
            assertThat(store.checkAfterOpen()).isEmpty();
            List<byte[]> expected = new ArrayList<>(values.subList(0, n - 700));
            expected.addAll(otherValues);
            for (int i = 0; i < 1_000; i++) {
                store.append(leaves.get(n + 1_000 + i));
                expected.add(values.get(n + 1_000 + i));
            }
            int size = expected.size();
            assertThat(store.size()).isEqualTo(size);
            for (int s : new int[] {1, 17, n - 701, n - 700, n, size - 1, size}) {
                assertThat(store.root(s)).as("root of %d", s).isEqualTo(Reference.mth(expected.subList(0, s)));
            }
            assertThat(store.checkUpperLevels()).isEmpty();
        }
        try (MerkleNodeStore reopened = MerkleNodeStore.open(dir, n + 2_300)) {
            assertThat(reopened.repairs()).isEmpty();
        }
    }
}
