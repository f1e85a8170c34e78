package io.trailproof.store;

import io.trailproof.core.merkle.Rfc9162;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tree's lower levels read through maps of their written files ({@link LevelMaps}): every node
 * read equals the one appended while the level grows past its maps, after a truncation and
 * re-growth, and a changed byte shows; a file cut under its map from outside makes reads of the
 * lost nodes fail, never crash the process or answer another node.
 */
class MappedLeavesTest {

    @TempDir
    Path tmp;

    private static byte[] leaf(long seed, long i) {
        return Rfc9162.leafHash(new byte[] {(byte) seed, (byte) i, (byte) (i >> 8), (byte) (i >> 16)});
    }

    private static void append(MerkleNodeStore store, List<byte[]> leaves, long seed, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            byte[] l = leaf(seed, leaves.size());
            store.append(l);
            leaves.add(l);
        }
    }

    /** Random single nodes and runs of level 0, each compared with what was appended. */
    private static void readsMatch(MerkleNodeStore store, List<byte[]> leaves, Random random) {
        for (int t = 0; t < 3000; t++) {
            long i = random.nextInt(leaves.size());
            assertThat(store.get(0, i)).as("leaf %d", i).isEqualTo(leaves.get((int) i));
        }
        for (int t = 0; t < 200; t++) {
            int n = 1 + random.nextInt(600);
            long from = random.nextInt(leaves.size() - n);
            byte[] run = store.nodes(0, from, n);
            for (int k = 0; k < n; k++) {
                assertThat(Arrays.copyOfRange(run, k * 32, k * 32 + 32)).as("leaf %d", from + k)
                        .isEqualTo(leaves.get((int) (from + k)));
            }
        }
    }

    @Test
    void nodesReadThroughMapsAreTheAppendedOnesAsTheLevelGrowsAndIsCut() throws Exception {
        Random random = new Random(21);
        List<byte[]> leaves = new ArrayList<>();
        long growNodes = LevelMaps.GROW_BYTES / 32;
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0)) {
            append(store, leaves, 1, 40_000);
            readsMatch(store, leaves, random);
            // Grown by less than a map's step, then by more: read past the map, then through a new one.
            append(store, leaves, 1, (int) growNodes / 2);
            readsMatch(store, leaves, random);
            append(store, leaves, 1, (int) growNodes + 5_000);
            readsMatch(store, leaves, random);

            // Cut back (its maps let go) and grown again with other leaves: the new ones are read.
            store.truncate(30_000);
            leaves.subList(30_000, leaves.size()).clear();
            append(store, leaves, 2, 90_000);
            readsMatch(store, leaves, random);
            store.force();
        }
        // Reopened: the whole level written, read through maps from the first read.
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), leaves.size())) {
            readsMatch(store, leaves, random);
        }
    }

    @Test
    void aByteChangedInTheFileShowsThroughTheMap() throws Exception {
        List<byte[]> leaves = new ArrayList<>();
        Path level0 = tmp.resolve("merkle").resolve(MerkleNodeStore.fileName(0));
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0)) {
            append(store, leaves, 3, 20_000);
            store.force();
            assertThat(store.get(0, 777)).isEqualTo(leaves.get(777));   // mapped now
            try (FileChannel ch = FileChannel.open(level0, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                ch.read(b, 777 * 32 + 5);
                b.put(0, (byte) (b.get(0) ^ 1)).rewind();
                ch.write(b, 777 * 32 + 5);
            }
            byte[] changed = leaves.get(777).clone();
            changed[5] ^= 1;
            assertThat(store.get(0, 777)).isEqualTo(changed);
            assertThat(store.get(0, 778)).isEqualTo(leaves.get(778));
        }
    }

    @Test
    void aLevelFileCutUnderItsMapFailsTheReadsOfWhatItLost() throws Exception {
        List<byte[]> leaves = new ArrayList<>();
        Path level0 = tmp.resolve("merkle").resolve(MerkleNodeStore.fileName(0));
        try (MerkleNodeStore store = MerkleNodeStore.open(tmp.resolve("merkle"), 0)) {
            append(store, leaves, 4, 50_000);
            store.force();
            assertThat(store.get(0, 40_000)).isEqualTo(leaves.get(40_000));   // mapped now
            try (FileChannel ch = FileChannel.open(level0, StandardOpenOption.WRITE)) {
                ch.truncate(4096);
            }
            for (long i : new long[] {10_000, 40_000, 45_000}) {
                AtomicReference<Object> outcome = new AtomicReference<>();
                Thread reader = new Thread(() -> {
                    try {
                        outcome.set(store.get(0, i));
                    } catch (Throwable t) {
                        outcome.compareAndSet(null, t);
                    }
                });
                reader.start();
                reader.join();
                assertThat(outcome.get()).as("leaf %d", i).isInstanceOf(RuntimeException.class);
            }
            assertThat(store.get(0, 3)).isEqualTo(leaves.get(3));   // still in the file
        }
    }
}
