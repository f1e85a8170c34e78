package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.MerkleProofs;
import io.trailproof.core.merkle.Rfc9162;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MerkleNodeStoreTest {
    @TempDir
    Path tmp;

    private static List<byte[]> leafHashes(long seed, int count) {
        Random random = new Random(seed);
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] eventHash = new byte[32];
            random.nextBytes(eventHash);
            out.add(Rfc9162.leafHash(eventHash));
        }
        return out;
    }

    private static void assertSameTree(MerkleNodeStore store, InMemorySubtreeHashes expected, long n, Random random) {
        assertThat(store.size()).isEqualTo(n);
        for (long s = 0; s <= n; s++) {
            assertThat(store.root(s)).as("root(%d)", s).isEqualTo(expected.root(s));
        }
        for (int k = 0; k < 300 && n > 0; k++) {
            long size = 1 + random.nextLong(n);
            long i = random.nextLong(size);
            long m = random.nextLong(size + 1);
            assertThat(store.inclusionProof(i, size)).containsExactlyElementsOf(expected.inclusionProof(i, size));
            assertThat(store.consistencyProof(m, size)).containsExactlyElementsOf(expected.consistencyProof(m, size));
        }
    }

    /** The last root is kept (a root request costs a lookup); what a caller does to its copy changes nothing. */
    @Test
    void theKeptRootIsTheRootAndCallersCannotChangeIt() throws IOException {
        List<byte[]> leaves = leafHashes(9, 300);
        InMemorySubtreeHashes expected = InMemorySubtreeHashes.ofLeafHashes(leaves);
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0, 7, 3)) {
            for (int i = 0; i < leaves.size(); i++) {
                store.append(leaves.get(i));
                byte[] first = store.root(i + 1);
                first[0] ^= 1;
                assertThat(store.root(i + 1)).isEqualTo(expected.root(i + 1));
                assertThat(store.root(i + 1)).isEqualTo(expected.root(i + 1));
                assertThat(store.root((i + 1) / 2)).isEqualTo(expected.root((i + 1) / 2));
            }
        }
    }

    @Test
    void matchesTheInMemoryTreeAndSurvivesReopen() throws IOException {
        List<byte[]> leaves = leafHashes(1, 1000);
        InMemorySubtreeHashes expected = InMemorySubtreeHashes.ofLeafHashes(leaves);
        Path dir = tmp.resolve("merkle");
        // Small chunks and a low resident level exercise buffer turnover, file reads and the cache.
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0, 7, 4)) {
            for (byte[] leaf : leaves) {
                store.append(leaf);
            }
            assertSameTree(store, expected, 1000, new Random(2));
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 1000)) {
            assertSameTree(store, expected, 1000, new Random(3));
            assertThat(Files.size(dir.resolve("level-00.hash"))).isEqualTo(1000 * 32);
            assertThat(Files.size(dir.resolve("level-09.hash"))).isEqualTo(32);
        }
        // Trusting fewer leaves cuts every level back; the dropped nodes can be re-appended.
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 613, 16, 3)) {
            assertSameTree(store, expected, 613, new Random(4));
            assertThat(Files.size(dir.resolve("level-00.hash"))).isEqualTo(613 * 32);
            assertThat(Files.size(dir.resolve("level-09.hash"))).isEqualTo(32);
            assertThat(Files.size(dir.resolve("level-05.hash"))).isEqualTo((613 >> 5) * 32);
            for (int i = 613; i < 1000; i++) {
                store.append(leaves.get(i));
            }
            assertSameTree(store, expected, 1000, new Random(5));
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 100)) {
            assertSameTree(store, expected, 100, new Random(6));
            assertThat(Files.size(dir.resolve("level-09.hash"))).isZero();
        }
    }

    @Test
    void aShortenedFileReopensAtTheSizeAllLevelsSupport() throws IOException {
        List<byte[]> leaves = leafHashes(7, 1000);
        InMemorySubtreeHashes expected = InMemorySubtreeHashes.ofLeafHashes(leaves);
        Path dir = tmp.resolve("merkle");
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0)) {
            leaves.forEach(leaf -> append(store, leaf));
        }
        // Level 3 lost its last nodes and half of one more (a torn write): 124 full nodes remain.
        try (FileChannel ch = FileChannel.open(dir.resolve("level-03.hash"), StandardOpenOption.WRITE)) {
            ch.truncate(124 * 32 + 16);
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 1000)) {
            assertThat(store.size()).isEqualTo(125 * 8 - 1);
            assertSameTree(store, expected, 999, new Random(8));
            store.append(leaves.get(999));
            assertSameTree(store, expected, 1000, new Random(9));
        }
        // A lost leaf file leaves nothing to trust.
        Files.delete(dir.resolve("level-00.hash"));
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 1000)) {
            assertThat(store.size()).isZero();
            assertThat(Files.size(dir.resolve("level-05.hash"))).isZero();
            leaves.forEach(leaf -> append(store, leaf));
            assertSameTree(store, expected, 1000, new Random(10));
        }
    }

    @Test
    void truncateDropsLeavesForRebuilding() throws IOException {
        List<byte[]> leaves = leafHashes(11, 300);
        List<byte[]> other = leafHashes(12, 300);
        Path dir = tmp.resolve("merkle");
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0, 5, 3)) {
            leaves.forEach(leaf -> append(store, leaf));
            store.force();
            store.truncate(77);
            List<byte[]> rebuilt = new ArrayList<>(leaves.subList(0, 77));
            rebuilt.addAll(other.subList(77, 300));
            for (int i = 77; i < 300; i++) {
                store.append(other.get(i));
            }
            assertSameTree(store, InMemorySubtreeHashes.ofLeafHashes(rebuilt), 300, new Random(13));
            assertThatThrownBy(() -> store.truncate(301)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void rejectsBadArgumentsAndUseAfterClose() throws IOException {
        MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0);
        assertThat(store.root(0)).isEqualTo(Rfc9162.emptyRoot());
        assertThatThrownBy(() -> store.append(new byte[31])).isInstanceOf(IllegalArgumentException.class);
        store.append(leafHashes(1, 1).get(0));
        assertThatThrownBy(() -> store.get(0, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("level 0, index 1");
        assertThatThrownBy(() -> store.get(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.root(2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MerkleNodeStore.open(tmp.resolve("x"), -1)).isInstanceOf(IllegalArgumentException.class);
        store.close();
        store.close();
        assertThatThrownBy(() -> store.get(0, 0)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.append(new byte[32])).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anInterruptedReaderDoesNotBreakTheStore() throws Exception {
        List<byte[]> leaves = leafHashes(21, 100);
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0, 4, 30)) {
            leaves.forEach(leaf -> append(store, leaf));
            Thread.currentThread().interrupt();
            try {
                assertThat(store.get(0, 3)).isEqualTo(leaves.get(3));
                assertThat(Thread.currentThread().isInterrupted()).as("interrupt status kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(store.get(0, 5)).isEqualTo(leaves.get(5));
            store.append(leaves.get(0));
            store.force();
        }
    }

    /**
     * One appender, several readers: every root and proof a reader computes for a size it has seen
     * equals the precomputed one, and every proof verifies, while chunks turn over underneath.
     */
    @Test
    void concurrentReadersSeeConsistentNodesDuringAppends() throws Exception {
        int total = 20_000;
        List<byte[]> leaves = leafHashes(31, total);
        InMemorySubtreeHashes expected = InMemorySubtreeHashes.ofLeafHashes(leaves);
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0, 8, 6)) {
            AtomicBoolean done = new AtomicBoolean();
            List<Future<Integer>> readers = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                long seed = 100 + r;
                readers.add(pool.submit(() -> {
                    Random random = new Random(seed);
                    int checks = 0;
                    while (!done.get() || checks < 100) {
                        long n = store.size();
                        if (n == 0) {
                            continue;
                        }
                        long i = random.nextLong(n);
                        byte[] root = store.root(n);
                        assertThat(root).as("root(%d)", n).isEqualTo(expected.root(n));
                        List<byte[]> path = store.inclusionProof(i, n);
                        assertThat(MerkleProofs.verifyInclusion(leaves.get((int) i), i, n, path, root)).isTrue();
                        long m = random.nextLong(n + 1);
                        assertThat(MerkleProofs.verifyConsistency(m, n, expected.root(m), root,
                                store.consistencyProof(m, n))).as("m=%d n=%d", m, n).isTrue();
                        checks++;
                    }
                    return checks;
                }));
            }
            Future<?> appender = pool.submit(() -> {
                for (byte[] leaf : leaves) {
                    append(store, leaf);
                }
                done.set(true);
                return null;
            });
            appender.get(60, TimeUnit.SECONDS);
            for (Future<Integer> reader : readers) {
                assertThat(reader.get(60, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(100);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The contract's budget: a proof at 1,000,000 leaves costs well under a millisecond. */
    @Test
    void proofsAtAMillionLeavesAreFast() throws IOException {
        int total = 1_000_000;
        Random random = new Random(41);
        byte[] leaf = new byte[32];
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < total; i++) {
                random.nextBytes(leaf);
                store.append(leaf);
            }
            store.force();
            long appendNanos = System.nanoTime() - t0;
            int rounds = 20_000;
            long sink = 0;
            long t1 = 0;
            for (int round = 0; round < 2 * rounds; round++) {
                if (round == rounds) {
                    t1 = System.nanoTime(); // the first half warms up the JIT
                }
                long i = random.nextLong(total);
                sink += store.inclusionProof(i, total).size();
                sink += store.root(total).length;
            }
            long perProofNanos = (System.nanoTime() - t1) / rounds;
            System.out.printf("MerkleNodeStore: %d appends %.0f ms, inclusion proof + root %.1f us (%d)%n",
                    total, appendNanos / 1e6, perProofNanos / 1e3, sink);
            assertThat(perProofNanos).isLessThan(1_000_000);
        }
    }

    private static void append(MerkleNodeStore store, byte[] leaf) {
        try {
            store.append(leaf);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
