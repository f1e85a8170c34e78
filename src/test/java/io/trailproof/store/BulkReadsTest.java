package io.trailproof.store;

import io.trailproof.core.merkle.Rfc9162;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The read paths that fetch more than one item per system call return exactly what single reads do. */
class BulkReadsTest {

    @TempDir
    Path dir;

    @Test
    void framesOfEverySizeAroundTheFirstReadAreReadWhole() throws Exception {
        Random random = new Random(5);
        List<byte[]> payloads = new ArrayList<>();
        for (int size : new int[] {1, 100, 2030, 2039, 2040, 2041, 2048, 2049, 4096, 70_000}) {
            byte[] p = new byte[size];
            random.nextBytes(p);
            payloads.add(p);
        }
        try (SegmentLog log = SegmentLog.open(dir.resolve("log"))) {
            log.append(payloads);
            log.awaitDurable(log.size());
            for (int i = 0; i < payloads.size(); i++) {
                assertThat(log.read(i)).as("payload of %d bytes", payloads.get(i).length).isEqualTo(payloads.get(i));
            }
        }
        try (SegmentLog log = SegmentLog.open(dir.resolve("log"))) {
            assertThat(log.read(payloads.size() - 1)).isEqualTo(payloads.get(payloads.size() - 1));
        }
    }

    @Test
    void runsOfNodesEqualTheNodesOneByOne() throws Exception {
        try (MerkleNodeStore store = MerkleNodeStore.open(dir.resolve("merkle"), 0)) {
            for (int i = 0; i < 5000; i++) {
                store.append(Rfc9162.leafHash(new byte[] {(byte) i, (byte) (i >> 8)}));
            }
            Random random = new Random(6);
            for (int t = 0; t < 200; t++) {
                int level = random.nextInt(4);
                long count = store.size() >>> level;
                long from = random.nextLong(count);
                int n = (int) Math.min(count - from, 1 + random.nextInt(700));
                byte[] run = store.nodes(level, from, n);
                for (int i = 0; i < n; i++) {
                    assertThat(Arrays.copyOfRange(run, i * 32, i * 32 + 32)).isEqualTo(store.get(level, from + i));
                }
            }
            assertThatThrownBy(() -> store.nodes(0, 4990, 20)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void readEachVisitsExactlyTheAskedFramesAndStopsAtADamagedOne() throws Exception {
        Random random = new Random(7);
        List<byte[]> payloads = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            byte[] p = new byte[1 + random.nextInt(i % 100 == 0 ? 300_000 : 1500)];
            random.nextBytes(p);
            payloads.add(p);
        }
        Path logDir = dir.resolve("log");
        try (SegmentLog log = SegmentLog.open(logDir, 1 << 20)) {
            for (int i = 0; i < payloads.size(); i += 100) {
                log.append(payloads.subList(i, i + 100));
            }
            log.awaitDurable(log.size());
            for (int stride : new int[] {1, 3, 5, 97, 1000}) {
                long[] indexes = LongStream.iterate(random.nextInt(stride), i -> i < payloads.size(),
                        i -> i + stride).toArray();
                List<Long> seen = new ArrayList<>();
                log.readEach(indexes, (index, payload) -> {
                    assertThat(payload).isEqualTo(payloads.get((int) index));
                    seen.add(index);
                });
                assertThat(seen).containsExactlyElementsOf(Arrays.stream(indexes).boxed().toList());
            }
            // A byte changed in a frame that a walk's read passes over but does not visit: not its concern.
            long[] everyThird = LongStream.iterate(0, i -> i < payloads.size(), i -> i + 3).toArray();
            flipInFrameOf(logDir, payloads.get(50));   // between 48 and 51, in the same read
            List<Long> passed = new ArrayList<>();
            log.readEach(everyThird, (index, payload) -> {
                assertThat(payload).isEqualTo(payloads.get((int) index));
                passed.add(index);
            });
            assertThat(passed).hasSize(everyThird.length);
            assertThatThrownBy(() -> log.readEach(new long[] {49, 50, 51}, (index, payload) -> { }))
                    .isInstanceOf(CorruptLogException.class);
            // A byte changed on disk under the open log: the walk stops there with the file and offset.
            Path first;
            try (var files = Files.list(logDir)) {
                first = files.filter(f -> f.toString().endsWith(".seg")).sorted().findFirst().orElseThrow();
            }
            try (FileChannel ch = FileChannel.open(first,
                    StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                long at = ch.size() / 2;
                ch.read(b, at);
                b.put(0, (byte) (b.get(0) ^ 0x40)).rewind();
                ch.write(b, at);
            }
            long[] all = LongStream.range(0, payloads.size()).toArray();
            List<Long> before = new ArrayList<>();
            assertThatThrownBy(() -> log.readEach(all, (index, payload) -> before.add(index)))
                    .isInstanceOf(CorruptLogException.class).hasMessageContaining(first.getFileName().toString());
            assertThat(before).isNotEmpty().hasSizeLessThan(payloads.size());
        }
    }

    /** Flips one bit in the middle of the frame holding {@code payload}, in whichever segment holds it. */
    private static void flipInFrameOf(Path logDir, byte[] payload) throws Exception {
        List<Path> segments;
        try (var files = Files.list(logDir)) {
            segments = files.filter(f -> f.toString().endsWith(".seg")).sorted().toList();
        }
        for (Path segment : segments) {
            byte[] bytes = Files.readAllBytes(segment);
            for (int at = 0; at + payload.length <= bytes.length; at++) {
                if (Arrays.equals(bytes, at, at + payload.length, payload, 0, payload.length)) {
                    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                        ByteBuffer b = ByteBuffer.allocate(1);
                        long where = at + payload.length / 2;
                        ch.read(b, where);
                        b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
                        ch.write(b, where);
                    }
                    return;
                }
            }
        }
        throw new AssertionError("no segment holds the payload");
    }
}
