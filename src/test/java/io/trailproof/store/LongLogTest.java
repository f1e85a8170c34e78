package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long logs: open file descriptors stay bounded however many segments there
 * are, and the position table grows without a fixed ceiling (and never fails after a group is on disk).
 */
class LongLogTest {
    @TempDir
    Path tmp;

    static byte[] payloadFor(long index) {
        return ByteBuffer.allocate(16).put((byte) '{').putLong(index).put(new byte[] {1, 2, 3, 4, 5, 6, 7}).array();
    }

    /** Descriptors this process holds open on files in {@code dir} (Linux {@code /proc/self/fd}). */
    private static long openDescriptorsUnder(Path dir) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        assumeTrue(Files.isDirectory(fds), "needs /proc/self/fd");
        Path real = dir.toRealPath();
        long n = 0;
        try (Stream<Path> s = Files.list(fds)) {
            for (Path fd : s.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).startsWith(real)) {
                        n++;
                    }
                } catch (IOException gone) {
                    // closed while listing
                }
            }
        }
        return n;
    }

    @Test
    void descriptorsStayBoundedWithManySegmentsWhileEveryPayloadStaysReadable() throws IOException {
        Path dir = tmp.resolve("log");
        int total = 5000;
        try (SegmentLog log = SegmentLog.open(dir, 1024)) {
            for (long i = 0; i < total; i += 4) {
                log.append(List.of(payloadFor(i), payloadFor(i + 1), payloadFor(i + 2), payloadFor(i + 3)));
            }
            log.awaitDurable(total);
        }
        long segments = SegmentLogTest.segmentCount(dir);
        assertThat(segments).as("well beyond the channel bound").isGreaterThan(100L);
        long bound = SegmentLog.DEFAULT_MAX_OPEN_READERS + 2;   // + the writer and the forced-size file
        try (SegmentLog log = SegmentLog.open(dir, 1024)) {
            assertThat(openDescriptorsUnder(dir)).as("after recovery read every segment").isLessThanOrEqualTo(bound);
            Random rnd = new Random(11);
            for (int k = 0; k < 3000; k++) {
                long i = rnd.nextInt(total);
                assertThat(log.read(i)).isEqualTo(payloadFor(i));
            }
            long[] expect = {0};
            log.scan(0, total, (i, p) -> assertThat(p).isEqualTo(payloadFor(expect[0]++)));
            log.readEach(LongStream.range(0, total).filter(i -> i % 7 == 0).toArray(),
                    (i, p) -> assertThat(p).isEqualTo(payloadFor(i)));
            assertThat(openDescriptorsUnder(dir)).isLessThanOrEqualTo(bound);
            assertThat(log.openReadChannels()).isLessThanOrEqualTo(SegmentLog.DEFAULT_MAX_OPEN_READERS);
        }
    }

    @Test
    void concurrentAndInterruptedReadersShareAFewChannels() throws Exception {
        Path dir = tmp.resolve("log");
        int total = 2000;
        int max = 3;
        try (SegmentLog log = SegmentLog.open(dir, 512, false, SegmentIo.FILES, max)) {
            for (long i = 0; i < total; i += 2) {
                log.append(List.of(payloadFor(i), payloadFor(i + 1)));
            }
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> readers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                long seed = t;
                readers.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    for (int k = 0; k < 3000; k++) {
                        long i = rnd.nextInt(total);
                        if (k % 100 == 0) {
                            Thread.currentThread().interrupt();   // this read may fail; others must not
                            try {
                                log.read(i);
                            } catch (IOException expected) {
                                // ClosedByInterruptException
                            } finally {
                                Thread.interrupted();
                            }
                            continue;
                        }
                        assertThat(log.read(i)).isEqualTo(payloadFor(i));
                        assertThat(log.openReadChannels()).isLessThanOrEqualTo(max + 4);
                    }
                    return null;
                }));
            }
            for (Future<?> f : readers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(log.openReadChannels()).isLessThanOrEqualTo(max);
            log.scan(0, total, (i, p) -> assertThat(p).isEqualTo(payloadFor(i)));
        }
    }

    @Test
    void positionTableGrowsAcrossPagesAndKeepsEveryEntry() throws IOException {
        Path dir = tmp.resolve("log");
        int total = 5 * PositionTable.PAGE_ENTRIES + 123;   // more pages than the first directory holds
        try (SegmentLog log = SegmentLog.open(dir, 8L << 20)) {
            List<byte[]> group = new ArrayList<>();
            for (long i = 0; i < total; i++) {
                group.add(payloadFor(i));
                if (group.size() == 1000 || i == total - 1) {
                    log.append(group);
                    group = new ArrayList<>();
                }
            }
            log.awaitDurable(total);
            for (long i = 0; i < total; i += 997) {
                assertThat(log.read(i)).isEqualTo(payloadFor(i));
            }
        }
        try (SegmentLog log = SegmentLog.open(dir, 8L << 20)) {
            assertThat(log.size()).isEqualTo(total);
            long[] expect = {0};
            log.scan(0, total, (i, p) -> assertThat(p).isEqualTo(payloadFor(expect[0]++)));
            assertThat(expect[0]).isEqualTo(total);
        }
    }

    @Test
    void positionTableRefusesBeyondItsRangeBeforeAllocating() {
        PositionTable table = new PositionTable();
        table.reserve(3 * PositionTable.PAGE_ENTRIES + 1);
        table.set(3L * PositionTable.PAGE_ENTRIES, 42);
        assertThat(table.get(3L * PositionTable.PAGE_ENTRIES)).isEqualTo(42);
        assertThatThrownBy(() -> table.reserve(1L << 46)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot index");
        assertThat(table.get(3L * PositionTable.PAGE_ENTRIES)).isEqualTo(42);
    }
}
