package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Reference;
import io.trailproof.testing.Await;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A wrong byte in a stored level above 0 never yields a wrong root. The expected
 * roots come from {@link Reference}, which hashes the leaf values itself and shares no code with the
 * store.
 */
class MerkleNodeStoreRepairTest {
    private static final int N = 700;
    private static List<byte[]> values;
    private static List<byte[]> leafHashes;
    private static List<byte[]> roots;
    private static InMemorySubtreeHashes proofs;

    @TempDir
    Path tmp;

    @BeforeAll
    static void referenceRoots() {
        values = Reference.randomLeaves(new Random(404), N);
        leafHashes = Reference.leafHashes(values);
        roots = new ArrayList<>();
        for (int s = 0; s <= N; s++) {
            roots.add(Reference.mth(values.subList(0, s)));
        }
        proofs = InMemorySubtreeHashes.ofLeafHashes(leafHashes);
    }

    private Path storeOf(int leaves, int chunkNodes, int residentFrom) throws IOException {
        Path dir = tmp.resolve("merkle");
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0, chunkNodes, residentFrom)) {
            for (int i = 0; i < leaves; i++) {
                store.append(leafHashes.get(i));
            }
        }
        return dir;
    }

    private static void flipByte(Path dir, int level, long node, int byteInNode) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve(MerkleNodeStore.fileName(level)), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            long pos = node * 32 + byteInNode;
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, pos);
            b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
            ch.write(b, pos);
        }
    }

    /** Roots use only even-indexed nodes below the top; the proofs at size n use the odd ones too. */
    private static void assertEveryRootMatchesTheLeaves(MerkleNodeStore store, int n) {
        assertThat(store.size()).isEqualTo(n);
        for (int s = 1; s <= n; s++) {
            assertThat(store.root(s)).as("root(%d)", s).isEqualTo(roots.get(s));
        }
        for (int i = 0; i < n; i++) {
            assertThat(store.inclusionProof(i, n)).as("inclusion proof of %d", i)
                    .containsExactlyElementsOf(proofs.inclusionProof(i, n));
        }
    }

    @ParameterizedTest(name = "level {0} node {1}, resident from level {2}")
    @CsvSource({
        "5, 16, 6", // a file-only level, mid-level
        "5, 17, 3", // a resident level (the default), an odd node: only proofs use it
        "5, 20, 6", // the last node of a level (700 >> 5 = 21 nodes)
        "7, 4, 3", // the last node of a resident level
        "9, 0, 3", // the only node of the top level
        "1, 349, 3", // the last node of the lowest upper level
        "2, 0, 3", // the first node
    })
    void aFlippedByteInAnUpperLevelIsRewrittenAtOpenAndReported(int level, long node, int residentFrom)
            throws IOException {
        Path dir = storeOf(N, 7, residentFrom);
        flipByte(dir, level, node, 13);
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N, 7, residentFrom)) {
            assertThat(store.repairs()).singleElement().asString()
                    .contains(MerkleNodeStore.fileName(level), "1 of " + (N >> level), "node index " + node,
                            "recomputed " + HexFormat.of().formatHex(proofs.get(level, node)))
                    .doesNotContain("every node above it");
            assertEveryRootMatchesTheLeaves(store, N);
        }
        // The repair reached the file: the next open finds nothing, and the default tunables agree.
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N)) {
            assertThat(store.repairs()).isEmpty();
            assertEveryRootMatchesTheLeaves(store, N);
        }
    }

    @Test
    void severalDamagedLevelsAreEachReported() throws IOException {
        Path dir = storeOf(N, 1024, 3);
        flipByte(dir, 1, 3, 0);
        flipByte(dir, 1, 200, 31);
        flipByte(dir, 4, 42, 7);
        flipByte(dir, 8, 1, 1);
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N)) {
            assertThat(store.repairs()).hasSize(3);
            assertThat(store.repairs().get(0)).contains("level-01.hash", "2 of 350", "node index 3");
            assertThat(store.repairs().get(1)).contains("level-04.hash", "node index 42");
            assertThat(store.repairs().get(2)).contains("level-08.hash", "node index 1");
            assertEveryRootMatchesTheLeaves(store, N);
        }
    }

    /** Past 2^15 leaves the check works in chunks and then above them; both halves must see damage. */
    @Test
    void damageIsFoundAcrossChunksAndAboveThem() throws IOException {
        int n = 70_001;
        List<byte[]> manyValues = Reference.randomLeaves(new Random(405), n);
        List<byte[]> many = Reference.leafHashes(manyValues);
        InMemorySubtreeHashes expected = InMemorySubtreeHashes.ofLeafHashes(many);
        Path dir = tmp.resolve("merkle");
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0)) {
            for (byte[] leaf : many) {
                store.append(leaf);
            }
        }
        flipByte(dir, 2, 17_000, 5); // in the third chunk
        flipByte(dir, 15, 1, 0); // the root of the second chunk
        flipByte(dir, 16, 0, 9); // above the chunks, the last node of its level
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, n)) {
            assertThat(store.repairs()).hasSize(3);
            assertThat(String.join("\n", store.repairs())).contains("level-02.hash: 1 of 17500 nodes",
                    "node index 17000", "level-15.hash: 1 of 2 nodes", "level-16.hash: 1 of 1 nodes");
            Random random = new Random(406);
            for (int k = 0; k < 200; k++) {
                long s = 1 + random.nextInt(n);
                assertThat(store.root(s)).as("root(%d)", s).isEqualTo(expected.root(s));
            }
            for (long s : new long[] {32_768, 65_535, 65_536, 65_537, n}) {
                assertThat(store.root(s)).as("root(%d)", s).isEqualTo(expected.root(s));
            }
            assertThat(store.root(n)).isEqualTo(Reference.mth(manyValues));
        }
    }

    @Test
    void theRunningCheckFindsAndRewritesDamagedFiles() throws IOException {
        Path dir = tmp.resolve("merkle");
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0, 7, 3)) {
            for (int i = 0; i < N; i++) {
                store.append(leafHashes.get(i));
            }
            store.force();
            assertThat(store.checkUpperLevels()).isEmpty();
            // A file-only level is what readers are served: its damage shows in roots at once.
            flipByte(dir, 1, 100, 3);
            assertThat(store.root(202)).isNotEqualTo(roots.get(202));
            // A resident level's file is only read at the next open, but it must be right by then.
            flipByte(dir, 6, 9, 30);
            List<String> found = store.checkUpperLevels();
            assertThat(found).hasSize(2);
            assertThat(found.get(0)).contains("level-01.hash", "node index 100", "rewrote");
            assertThat(found.get(1)).contains("level-06.hash", "node index 9");
            assertEveryRootMatchesTheLeaves(store, N);
            assertThat(store.checkUpperLevels()).isEmpty();
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N)) {
            assertThat(store.repairs()).isEmpty();
            assertEveryRootMatchesTheLeaves(store, N);
        }
    }

    /** The lock-free comparison must not mistake a tree growing underneath it for damage. */
    @Test
    void theRunningCheckSeesNoDamageWhileAppendsGoOn() throws Exception {
        int n = 20_000;
        List<byte[]> many = Reference.leafHashes(Reference.randomLeaves(new Random(407), n));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0, 8, 4)) {
            Future<?> appender = pool.submit(() -> {
                for (int i = 0; i < n; i++) {
                    store.append(many.get(i));
                    if (i % 1999 == 0) {
                        store.force();
                    }
                }
                return null;
            });
            int checks = 0;
            while (!appender.isDone() || checks < 3) {
                assertThat(store.checkUpperLevels()).isEmpty();
                checks++;
            }
            appender.get(60, TimeUnit.SECONDS);
            assertThat(store.root(n)).isEqualTo(InMemorySubtreeHashes.ofLeafHashes(many).root(n));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theRootFromLevelZeroIgnoresTheUpperLevels() throws IOException {
        Path dir = storeOf(N, 7, 3);
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N)) {
            for (int s = 0; s <= N; s += 7) {
                assertThat(store.recomputedRoot(s)).as("recomputedRoot(%d)", s).isEqualTo(roots.get(s));
            }
            assertThatThrownBy(() -> store.recomputedRoot(N + 1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    /**
     * A wrong leaf is the caller's to find (against the log): the store rebuilds the upper levels from
     * the leaves it has, and from the corrected leaves once the caller supplies them.
     */
    @Test
    void rewrittenLeavesRebuildTheLevelsAboveThem() throws IOException {
        Path dir = storeOf(N, 7, 3);
        flipByte(dir, 0, 123, 0);
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N, 7, 3)) {
            assertThat(store.repairs()).hasSize(9); // every ancestor of leaf 123, levels 1..9
            assertThat(store.repairs().get(0)).contains("level-01.hash: 1 of 350", "node index 61",
                    "every node above it", "compare level 0 with the log");
            assertThat(store.get(0, 123)).isNotEqualTo(leafHashes.get(123));
            assertThat(store.recomputedRoot(N)).isNotEqualTo(roots.get(N));
            // The store keeps the last root it computed: a repair must drop it, or the wrong root
            // computed from the wrong leaf would be served after the leaf was put right.
            assertThat(store.root(N)).isNotEqualTo(roots.get(N));
            assertThat(store.rewriteLeaves(123, List.of(leafHashes.get(123)))).hasSize(9);
            assertEveryRootMatchesTheLeaves(store, N);
            assertThatThrownBy(() -> store.rewriteLeaves(N, List.of(leafHashes.get(0))))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.rewriteLeaves(0, List.of(new byte[31])))
                    .isInstanceOf(IllegalArgumentException.class);
            assertEveryRootMatchesTheLeaves(store, N);
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N)) {
            assertThat(store.repairs()).isEmpty();
            assertEveryRootMatchesTheLeaves(store, N);
        }
    }

    /**
     * The check deferred past the start: appends go on before it, every reader waits for it, and
     * what they then get is the repaired tree; the node it rewrote is never served.
     */
    @Test
    void aCheckAfterTheOpenRepairsBeforeAnyReaderSeesTheTree() throws Exception {
        int before = N - 40;
        Path dir = storeOf(before, MerkleNodeStore.CHUNK_NODES, MerkleNodeStore.RESIDENT_FROM_LEVEL);
        flipByte(dir, 5, 16, 13);   // under every root of 544..575 leaves
        flipByte(dir, 9, 0, 3);     // the top node: under every root from 512 leaves on
        ExecutorService readers = Executors.newFixedThreadPool(2);
        try (MerkleNodeStore store = MerkleNodeStore.openCheckingLater(dir, before)) {
            assertThat(store.checked()).isFalse();
            for (int i = before; i < N; i++) {
                store.append(leafHashes.get(i));   // never waits for the check
            }
            Future<byte[]> root = readers.submit(() -> store.root(560));
            Future<List<byte[]>> proof = readers.submit(() -> store.inclusionProof(600, N));
            Await.nothingHappensWithin("a reader answering before the check");
            assertThat(root.isDone()).isFalse();
            assertThat(proof.isDone()).isFalse();
            assertThat(store.whenChecked().isDone()).isFalse();

            assertThat(store.checkAfterOpen()).hasSize(2);
            assertThat(store.checked()).isTrue();
            assertThat(root.get(30, TimeUnit.SECONDS)).isEqualTo(roots.get(560));
            assertThat(proof.get(30, TimeUnit.SECONDS)).containsExactlyElementsOf(proofs.inclusionProof(600, N));
            assertEveryRootMatchesTheLeaves(store, N);
        } finally {
            readers.shutdownNow();
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, N)) {
            assertThat(store.repairs()).isEmpty();
        }
    }
}
