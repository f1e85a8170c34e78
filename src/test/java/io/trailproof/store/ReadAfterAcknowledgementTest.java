package io.trailproof.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded-random property (src/site/storage.md#readers-see-one-readable-size): every acknowledged
 * payload and side record is readable through every read path of the log the moment its
 * {@link EventLog#awaitDurable} returns, with nothing written after it (an idle log: a later group
 * must not be what makes an earlier one readable), and again after the log is reopened.
 *
 * <p>Groups mix record and side frames whose sizes sit on every boundary the readers use: the
 * first read of a single payload (2 KB), the scan buffer and the sparse walk's window (256 KB),
 * recovery's read buffer (1 MiB), and page-sized spans (4 KB), each one byte below, at and above,
 * header included or not; the segment size is chosen so that groups also start segments.
 */
class ReadAfterAcknowledgementTest {

    private static final int H = FrameCodec.HEADER_BYTES;
    private static final int[] BOUNDARIES = {2048, 4096, 256 << 10, 1 << 20};

    @TempDir
    Path dir;

    /** What the log must hold: payloads by index, side records by address. */
    private static final class Model {
        final List<byte[]> payloads = new ArrayList<>();
        final Map<Long, byte[]> sides = new LinkedHashMap<>();
    }

    @Test
    void everyAcknowledgedGroupIsReadableAtOnceThroughEveryPath() throws Exception {
        for (long seed = 1; seed <= 12; seed++) {
            runSeed(seed);
        }
    }

    /** A read path, run for its failure alone: every path of a case is tried, and all failures reported. */
    @FunctionalInterface
    private interface ReadPath {
        void run() throws Exception;
    }

    private static void attempt(List<String> failures, String path, ReadPath read) {
        try {
            read.run();
        } catch (Exception | AssertionError e) {
            failures.add(path + ": " + e);
        }
    }

    /**
     * One frame alone in a log, its size one byte beyond a reader's buffer or window (the frame
     * starts the segment, so no earlier read holds its header), or a side frame of that size after
     * a small record: each path is tried, idle, and after the log is reopened.
     */
    @ParameterizedTest
    @ValueSource(ints = {2048 - H + 1, 4096 - H + 1, (256 << 10) - H + 1, (1 << 20) - H + 1, 1 << 20})
    void aFrameJustLargerThanAReadersBufferIsReadWholeByEveryPath(int size) throws Exception {
        byte[] payload = new byte[size];
        new Random(size).nextBytes(payload);
        Path logDir = dir.resolve("alone-" + size);
        List<String> failures = new ArrayList<>();
        long sideAddress;
        try (SegmentLog log = SegmentLog.open(logDir)) {
            log.append(List.of(payload));
            EventLog.Appended small = log.append(List.of(new byte[] {1}), List.of(payload));
            sideAddress = small.sideAddresses()[0];
            log.awaitDurable(log.size());
            attempt(failures, "read", () -> assertThat(log.read(0)).isEqualTo(payload));
            attempt(failures, "readEach", () -> log.readEach(new long[] {0, 1}, (i, p) -> {
                if (i == 0) {
                    assertThat(p).isEqualTo(payload);
                }
            }));
            attempt(failures, "scan(0, 1)", () -> log.scan(0, 1, (i, p) -> assertThat(p).isEqualTo(payload)));
            attempt(failures, "scanViews(1, 2) over the side frame", () -> log.scanViews(1, 2,
                    (i, b, o, l) -> assertThat(l).isEqualTo(1)));
            attempt(failures, "readSide", () -> assertThat(log.readSide(sideAddress)).isEqualTo(payload));
            attempt(failures, "committedFiles(1)", () -> assertThat(log.committedFiles(1).get(0).bytes())
                    .isEqualTo(H + size + FrameCodec.COMMIT_FRAME_BYTES));
            attempt(failures, "committedFiles(2) past the side frame", () -> assertThat(log.committedFiles(2).get(0).bytes())
                    .isEqualTo(2L * (H + size + FrameCodec.COMMIT_FRAME_BYTES) + H + 1));
        }
        attempt(failures, "reopen (recovery) and read", () -> {
            try (SegmentLog log = SegmentLog.open(logDir)) {
                assertThat(log.size()).isEqualTo(2);
                assertThat(log.read(0)).isEqualTo(payload);
                assertThat(log.readSide(sideAddress)).isEqualTo(payload);
            }
        });
        assertThat(failures).as("read paths failing for a frame of %d bytes", H + size).isEmpty();
    }

    private void runSeed(long seed) throws Exception {
        Random random = new Random(seed);
        Path logDir = dir.resolve("seed-" + seed);
        long segmentBytes = switch (random.nextInt(3)) {
            case 0 -> 64 << 10;
            case 1 -> 1 << 20;
            default -> SegmentLog.DEFAULT_SEGMENT_BYTES;
        };
        Model model = new Model();
        int groups = 10 + random.nextInt(10);
        SegmentLog log = SegmentLog.open(logDir, segmentBytes);
        try {
            for (int g = 0; g < groups; g++) {
                List<byte[]> records = new ArrayList<>();
                List<byte[]> sides = new ArrayList<>();
                int n = random.nextInt(4);
                int s = n == 0 ? 1 + random.nextInt(2) : (random.nextInt(3) == 0 ? 1 + random.nextInt(2) : 0);
                for (int i = 0; i < n; i++) {
                    records.add(payload(random));
                }
                for (int i = 0; i < s; i++) {
                    sides.add(payload(random));
                }
                EventLog.Appended at = log.append(records, sides);
                if (n > 0) {
                    log.awaitDurable(at.first() + n);
                } else {
                    log.forceWritten();
                }
                model.payloads.addAll(records);
                for (int i = 0; i < s; i++) {
                    model.sides.put(at.sideAddresses()[i], sides.get(i));
                }
                String shape = "seed " + seed + ", group " + g + " (" + sizes(records) + " records, " + sizes(sides)
                        + " side records)";
                checkEveryPath(log, model, at.first(), random, shape);
                if (random.nextInt(6) == 0) {
                    log.close();
                    log = SegmentLog.open(logDir, segmentBytes);   // recovery reads every frame again
                    checkEveryPath(log, model, 0, random, shape + " after reopening");
                }
            }
        } finally {
            log.close();
        }
        try (SegmentLog reopened = SegmentLog.open(logDir, segmentBytes)) {
            checkEveryPath(reopened, model, 0, random, "seed " + seed + " reopened at the end");
        }
    }

    /** Every read path over the payloads from {@code first} on (and a sample before), and every side record. */
    private static void checkEveryPath(SegmentLog log, Model model, long first, Random random, String shape)
            throws IOException {
        long size = model.payloads.size();
        assertThat(log.size()).as(shape).isEqualTo(size);
        assertThat(log.durableSize()).as(shape).isEqualTo(size);
        // by index (GET /v1/events/{id}, proofs)
        for (long i = first; i < size; i++) {
            assertThat(log.read(i)).as("read(%d) after %s", i, shape).isEqualTo(model.payloads.get((int) i));
        }
        // sequential scans from every start in the group, and from the start (index follower, stream catch-up, tiles)
        for (long from : LongStream.concat(LongStream.of(0, Math.max(0, first - 1)), LongStream.range(first, size))
                .distinct().toArray()) {
            List<byte[]> scanned = new ArrayList<>();
            log.scan(from, size, (index, payload) -> scanned.add(payload));
            assertSame(model, from, scanned, "scan(" + from + ", " + size + ") after " + shape);
            List<byte[]> viewed = new ArrayList<>();
            log.scanViews(from, size, (index, buf, offset, length) ->
                    viewed.add(Arrays.copyOfRange(buf, offset, offset + length)));
            assertSame(model, from, viewed, "scanViews(" + from + ", " + size + ") after " + shape);
            for (long to = from + 1; to <= size && to <= from + 3; to++) {
                List<byte[]> part = new ArrayList<>();
                log.scan(from, to, (index, payload) -> part.add(payload));
                assertThat(part).as("scan(%d, %d) after %s", from, to, shape)
                        .containsExactlyElementsOf(model.payloads.subList((int) from, (int) to));
            }
        }
        // sparse ascending walks (export, verify): the new payloads alone, with a sample of older ones
        if (size > 0) {
            long[] sparse = LongStream.range(0, size).filter(i -> i >= first || random.nextInt(4) == 0).toArray();
            List<byte[]> walked = new ArrayList<>();
            log.readEach(sparse, (index, payload) -> walked.add(payload));
            assertThat(walked).as("readEach after %s", shape)
                    .containsExactlyElementsOf(Arrays.stream(sparse).mapToObj(i -> model.payloads.get((int) i)).toList());
        }
        // side records (idempotent answers, cluster apply)
        for (Map.Entry<Long, byte[]> side : model.sides.entrySet()) {
            assertThat(log.readSide(side.getKey())).as("readSide(%d) after %s", side.getKey(), shape)
                    .isEqualTo(side.getValue());
        }
        // the committed prefix an online backup copies: ends at the end of the last group's commit frame
        if (size > 0) {
            List<FilePrefix> files = log.committedFiles(size);
            long total = 0;
            for (FilePrefix f : files) {
                assertThat(f.bytes()).as("prefix of %s after %s", f.name(), shape).isLessThanOrEqualTo(Files.size(f.file()));
                total += f.bytes();
            }
            assertThat(total).as("committed bytes after %s", shape).isPositive();
            if (random.nextInt(3) == 0) {
                assertBackupOpens(files, model, size, shape);
            }
        }
    }

    /** The prefixes, copied as a backup copies them, open as a log of exactly {@code size} payloads. */
    private static void assertBackupOpens(List<FilePrefix> files, Model model, long size, String shape) throws IOException {
        Path copy = Files.createTempDirectory("backup-copy");
        try {
            for (FilePrefix f : files) {
                byte[] bytes = Files.readAllBytes(f.file());
                Files.write(copy.resolve(f.name()), Arrays.copyOf(bytes, (int) f.bytes()));
            }
            try (SegmentLog restored = SegmentLog.open(copy)) {
                assertThat(restored.size()).as("backup copy after %s", shape).isEqualTo(size);
                assertThat(restored.read(size - 1)).as("last payload of the backup copy after %s", shape)
                        .isEqualTo(model.payloads.get((int) size - 1));
            }
        } finally {
            try (var paths = Files.walk(copy)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static void assertSame(Model model, long from, List<byte[]> read, String what) {
        assertThat(read).as(what).containsExactlyElementsOf(model.payloads.subList((int) from, model.payloads.size()));
    }

    /** A payload on a reader boundary (one below, at, one above; with and without the header), or a small one. */
    private static byte[] payload(Random random) {
        int size;
        if (random.nextInt(3) == 0) {
            size = 1 + random.nextInt(600);
        } else {
            int b = BOUNDARIES[pickBoundary(random)];
            int base = random.nextBoolean() ? b : b - H;
            size = base - 1 + random.nextInt(3);
            if (random.nextInt(4) == 0) {
                size = b - FrameCodec.COMMIT_FRAME_BYTES - H + random.nextInt(3) - 1;   // group of one ends on b
            }
        }
        byte[] p = new byte[size];
        random.nextBytes(p);
        return p;
    }

    /** Boundaries weighted to keep the test quick: a 1 MiB payload is rare. */
    private static int pickBoundary(Random random) {
        int r = random.nextInt(20);
        return r < 8 ? 0 : r < 15 ? 1 : r < 19 ? 2 : 3;
    }

    private static String sizes(List<byte[]> payloads) {
        return payloads.stream().map(p -> Integer.toString(p.length)).toList().toString();
    }
}
