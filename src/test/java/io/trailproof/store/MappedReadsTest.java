package io.trailproof.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Walks read sealed segments through memory maps (src/site/storage.md#memory-maps): they return
 * exactly what the channel reads return, on seeded random logs; only sealed segments are mapped;
 * a changed bit is still found; and a file cut under its map ends the walk with an
 * {@link IOException}, never a crash and never bytes that were not stored.
 */
class MappedReadsTest {
    private static final long SEGMENT_BYTES = 16 * 1024;

    @TempDir
    Path tmp;

    /** A log of random payloads (1 byte to 3 KB, a few of 40 KB) in groups of 1 to 20. */
    private static List<byte[]> fill(SegmentLog log, Random random, int count) throws IOException {
        List<byte[]> all = new ArrayList<>();
        while (all.size() < count) {
            List<byte[]> group = new ArrayList<>();
            int n = 1 + random.nextInt(20);
            for (int i = 0; i < n; i++) {
                byte[] b = new byte[random.nextInt(50) == 0 ? 40_000 : 1 + random.nextInt(3000)];
                random.nextBytes(b);
                group.add(b);
            }
            log.append(group);
            all.addAll(group);
        }
        log.awaitDurable(log.size());
        return all;
    }

    /** A random ascending subset of {@code [0, size)}: dense runs, wide gaps and single indexes. */
    private static long[] subset(Random random, long size) {
        int stride = new int[] {1, 2, 7, 40, 300}[random.nextInt(5)];
        return LongStream.range(0, size).filter(i -> random.nextInt(stride) == 0).toArray();
    }

    private static List<byte[]> walk(SegmentLog log, long[] indexes) throws IOException {
        List<byte[]> seen = new ArrayList<>();
        log.readEach(indexes, (index, payload) -> seen.add(payload));
        return seen;
    }

    private static List<Path> segments(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(Segment.SUFFIX)).sorted().toList();
        }
    }

    @Test
    void mappedWalksReadWhatChannelReadsReadOnSeededRandomLogs() throws Exception {
        for (long seed = 1; seed <= 6; seed++) {
            Random random = new Random(seed);
            Path dir = tmp.resolve("log-" + seed);
            List<byte[]> stored;
            try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
                stored = fill(log, random, 400 + random.nextInt(800));
                assertThat(segments(dir)).as("seed %d", seed).hasSizeGreaterThan(3);
                for (int t = 0; t < 20; t++) {
                    long[] indexes = subset(random, log.size());
                    List<byte[]> seen = walk(log, indexes);
                    assertThat(seen).as("seed %d", seed).hasSize(indexes.length);
                    for (int i = 0; i < indexes.length; i++) {
                        byte[] single = log.read(indexes[i]);   // the channel's read
                        assertThat(seen.get(i)).as("seed %d, payload %d", seed, indexes[i])
                                .isEqualTo(single).isEqualTo(stored.get((int) indexes[i]));
                    }
                }
                assertThat(log.mappedSegments()).isEqualTo(segments(dir).size() - 1);
            }
            // Reopened: sealed segments taken from their seal records, their offsets read on first use.
            try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
                long[] all = LongStream.range(0, log.size()).toArray();
                List<byte[]> seen = walk(log, all);
                for (int i = 0; i < all.length; i++) {
                    assertThat(seen.get(i)).as("seed %d, reopened, payload %d", seed, i).isEqualTo(stored.get(i));
                }
            }
        }
    }

    @Test
    void onlySealedSegmentsAreMappedWhileTheLogGrows() throws Exception {
        Random random = new Random(11);
        try (SegmentLog log = SegmentLog.open(tmp.resolve("log"), SEGMENT_BYTES)) {
            List<byte[]> stored = new ArrayList<>(fill(log, random, 3));
            walk(log, LongStream.range(0, log.size()).toArray());
            assertThat(log.mappedSegments()).as("the segment being written is read through its channel").isZero();

            // One thread appends (rolling to new segments), others walk what they saw published.
            ExecutorService pool = Executors.newFixedThreadPool(3);
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<List<byte[]>> published = new AtomicReference<>(List.copyOf(stored));
            try {
                List<Future<Integer>> walkers = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    long walkerSeed = w;
                    walkers.add(pool.submit(() -> {
                        Random r = new Random(walkerSeed);
                        int walks = 0;
                        while (!done.get() || walks < 5) {
                            List<byte[]> expected = published.get();
                            long[] indexes = subset(r, expected.size());
                            List<byte[]> seen = walk(log, indexes);
                            for (int i = 0; i < indexes.length; i++) {
                                assertThat(seen.get(i)).as("payload %d", indexes[i])
                                        .isEqualTo(expected.get((int) indexes[i]));
                            }
                            walks++;
                        }
                        return walks;
                    }));
                }
                for (int g = 0; g < 60; g++) {
                    stored.addAll(fill(log, random, 10));
                    published.set(List.copyOf(stored));
                }
                done.set(true);
                for (Future<Integer> w : walkers) {
                    assertThat(w.get()).isGreaterThanOrEqualTo(5);
                }
            } finally {
                done.set(true);
                pool.shutdownNow();
            }
            walk(log, LongStream.range(0, log.size()).toArray());
            assertThat(log.mappedSegments()).isEqualTo(segments(tmp.resolve("log")).size() - 1).isPositive();
        }
    }

    @Test
    void oneBitChangedUnderAMapIsFoundAndOnlyThere() throws Exception {
        Random random = new Random(12);
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            List<byte[]> stored = fill(log, random, 300);
            long[] all = LongStream.range(0, log.size()).toArray();
            walk(log, all);   // maps every sealed segment
            assertThat(log.mappedSegments()).isPositive();
            // Each payload of the first segment in turn, one bit of it changed under the map and changed back.
            Path first = segments(dir).get(0);
            long firstSegmentEnd = Segment.parseStart(segments(dir).get(1));
            for (long index = 0; index < firstSegmentEnd; index++) {
                byte[] payload = stored.get((int) index);
                long at = offsetOf(first, payload) + random.nextInt(payload.length);
                int bit = 1 << random.nextInt(8);
                flip(first, at, bit);
                long damaged = index;
                assertThatThrownBy(() -> walk(log, new long[] {damaged}))
                        .isInstanceOf(CorruptLogException.class).hasMessageContaining(first.getFileName().toString());
                // The neighbours are intact: a walk over them passes.
                long[] others = LongStream.range(0, firstSegmentEnd).filter(i -> i != damaged).toArray();
                assertThat(walk(log, others)).hasSize(others.length);
                flip(first, at, bit);
            }
        }
    }

    @Test
    void aSealedSegmentShorterThanItsFramesIsRefusedBeforeItIsMapped() throws Exception {
        Random random = new Random(13);
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            fill(log, random, 300);
            Path second = segments(dir).get(1);
            try (FileChannel ch = FileChannel.open(second, StandardOpenOption.WRITE)) {
                ch.truncate(ch.size() / 2);
            }
            long secondStart = Segment.parseStart(second);
            assertThatThrownBy(() -> walk(log, new long[] {secondStart}))
                    .isInstanceOf(CorruptLogException.class).hasMessageContaining(second.getFileName().toString())
                    .hasMessageContaining("file ends before");
            assertThat(walk(log, new long[] {0, 1})).hasSize(2);
        }
    }

    /**
     * A sealed segment cut from outside while it is mapped (what the log never does): the walk that
     * reads the lost pages ends with an {@link IOException} on its own thread, the process goes on,
     * and every payload it handed out before was the stored one.
     */
    @Test
    void aSealedSegmentCutUnderItsMapEndsTheWalkWithAnIoException() throws Exception {
        Random random = new Random(14);
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            List<byte[]> stored = fill(log, random, 600);
            long[] all = LongStream.range(0, log.size()).toArray();
            walk(log, all);   // maps every sealed segment
            Path second = segments(dir).get(1);
            long secondStart = Segment.parseStart(second);
            long secondEnd = Segment.parseStart(segments(dir).get(2));
            try (FileChannel ch = FileChannel.open(second, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            for (int attempt = 0; attempt < 3; attempt++) {
                List<Long> visited = new ArrayList<>();
                AtomicReference<Throwable> outcome = new AtomicReference<>();
                Thread walker = new Thread(() -> {
                    try {
                        log.readEach(all, (index, payload) -> {
                            assertThat(payload).as("payload %d", index).isEqualTo(stored.get((int) index));
                            visited.add(index);
                        });
                        outcome.set(new AssertionError("the walk read a file cut to nothing"));
                    } catch (Throwable t) {
                        outcome.compareAndSet(null, t);
                    }
                });
                walker.start();
                walker.join();
                assertThat(outcome.get()).isInstanceOf(IOException.class);
                assertThat(visited).doesNotContain(secondStart).allMatch(i -> i < secondStart);
            }
            // Other segments still read.
            long third = secondEnd;
            assertThat(walk(log, new long[] {0, third})).containsExactly(stored.get(0), stored.get((int) third));
        }
    }

    @Test
    void aRewrittenSegmentIsReadFromItsNewFileNotTheOldMap() throws Exception {
        Random random = new Random(15);
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            List<byte[]> stored = new ArrayList<>(fill(log, random, 300));
            long[] all = LongStream.range(0, log.size()).toArray();
            walk(log, all);
            int mapped = log.mappedSegments();
            byte[] replacement = "erased".getBytes();
            TreeMap<Long, byte[]> replacements = new TreeMap<>();
            replacements.put(3L, replacement);
            log.rewrite(replacements, EventLog.SideRewriter.KEEP);
            stored.set(3, replacement);
            assertThat(log.mappedSegments()).as("the replaced segment's map let go").isEqualTo(mapped - 1);
            List<byte[]> seen = walk(log, all);
            for (int i = 0; i < all.length; i++) {
                assertThat(seen.get(i)).as("payload %d", i).isEqualTo(stored.get(i));
            }
            assertThat(log.mappedSegments()).isEqualTo(mapped);
        }
    }

    private static long offsetOf(Path segment, byte[] payload) throws IOException {
        byte[] bytes = Files.readAllBytes(segment);
        for (int at = 0; at + payload.length <= bytes.length; at++) {
            if (Arrays.equals(bytes, at, at + payload.length, payload, 0, payload.length)) {
                return at;
            }
        }
        throw new AssertionError("payload not in " + segment);
    }

    private static void flip(Path file, long at, int bit) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ bit)).rewind();
            ch.write(b, at);
        }
    }
}
