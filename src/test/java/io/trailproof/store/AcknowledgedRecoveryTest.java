package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Recovery tells acknowledged (forced) groups from never-forced ones:
 * a torn group nobody was told about is cut silently; damage to, or truncation of, what was forced
 * stops the open with the file, the offset and the number of acknowledged payloads missing, unless
 * truncation is accepted, and then the loss is reported.
 */
class AcknowledgedRecoveryTest {
    private static final long BIG = 1 << 20;

    @TempDir
    Path tmp;

    private static byte[] event(int i) {
        return ("{\"n\":" + i + ",\"pad\":\"" + "x".repeat(i % 40) + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    /** Appends {@code groups} groups of 1..3 events; returns the segment length after each group (its commit boundary). */
    private static List<Long> fill(SegmentLog log, Path segment, int groups, List<byte[]> all) throws IOException {
        List<Long> boundaries = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            List<byte[]> group = new ArrayList<>();
            for (int k = 0; k <= g % 3; k++) {
                group.add(event(all.size() + k));
            }
            log.append(group);
            all.addAll(group);
            boundaries.add(Files.size(segment));
        }
        return boundaries;
    }

    private static Path segment0(Path dir) {
        return dir.resolve("00000000000000000000.seg");
    }

    private static void truncate(Path file, long length) throws IOException {
        byte[] b = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(b, (int) length));
    }

    private static void flipBit(Path file, long offset) throws IOException {
        byte[] b = Files.readAllBytes(file);
        b[(int) offset] ^= 0x01;
        Files.write(file, b);
    }

    @Test
    void truncationAtAnEarlierCommitBoundaryOfACleanlyClosedLogIsRefused() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = new ArrayList<>();
        List<Long> boundaries;
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            boundaries = fill(log, segment0(dir), 10, all);
        }
        // cut the last three groups (2 + 3 + 1 = 6 events... counted below), exactly at a commit boundary
        long cutAt = boundaries.get(6);
        truncate(segment0(dir), cutAt);
        long kept = countUpTo(7);
        assertThatThrownBy(() -> SegmentLog.open(dir, BIG))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class, e -> {
                    assertThat(e.file()).isEqualTo(segment0(dir));
                    assertThat(e.offset()).isEqualTo(cutAt);
                    assertThat(e.missingEvents()).isEqualTo(all.size() - kept);
                    assertThat(e.getMessage()).contains(segment0(dir).toString()).contains("offset " + cutAt)
                            .contains((all.size() - kept) + " acknowledged events missing");
                });
        assertThat(Files.size(segment0(dir))).as("nothing changed by the refusal").isEqualTo(cutAt);
    }

    /** Events in the first {@code groups} groups written by {@link #fill}. */
    private static long countUpTo(int groups) {
        long n = 0;
        for (int g = 0; g < groups; g++) {
            n += g % 3 + 1;
        }
        return n;
    }

    @Test
    void flippedBitInTheLastCommitFrameOfAnAcknowledgedGroupIsRefused() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = new ArrayList<>();
        List<Long> boundaries;
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            boundaries = fill(log, segment0(dir), 5, all);
            log.awaitDurable(log.size());   // acknowledged
        }
        long commitFrame = boundaries.get(4) - FrameCodec.COMMIT_FRAME_BYTES;
        flipBit(segment0(dir), commitFrame + 12);
        assertThatThrownBy(() -> SegmentLog.open(dir, BIG))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class, e -> {
                    assertThat(e.file()).isEqualTo(segment0(dir));
                    assertThat(e.offset()).isEqualTo(commitFrame);
                    assertThat(e.missingEvents()).isEqualTo(2);   // the last group: 4 % 3 + 1 events
                });
        assertThat(Files.size(segment0(dir))).isEqualTo(boundaries.get(4));
    }

    @Test
    void damagedGroupCoveredByALaterCommitFramesForcedSizeIsRefusedWithoutTheSideFile() throws IOException {
        Path dir = tmp.resolve("log");
        Path crashed = tmp.resolve("crashed");
        List<byte[]> all = new ArrayList<>();
        List<Long> boundaries;
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            boundaries = fill(log, segment0(dir), 3, all);
            log.awaitDurable(log.size());   // groups 0..2 forced and acknowledged
            fill(log, segment0(dir), 1, all);   // group 3 records forced size 6 in its commit frame
            SegmentLogTest.crashCopy(dir, crashed);
        }
        Files.delete(crashed.resolve(ForcedSizeFile.NAME));   // only the commit frame knows now
        flipBit(segment0(crashed), boundaries.get(1) + 10);   // inside group 2
        assertThatThrownBy(() -> SegmentLog.open(crashed, BIG))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class, e -> {
                    assertThat(e.offset()).isEqualTo(boundaries.get(1));
                    assertThat(e.missingEvents()).isEqualTo(3);   // group 2 had 3 events, all forced
                });
    }

    @Test
    void neverForcedGroupTornOutOfOrderIsCutNotCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        Path crashed = tmp.resolve("crashed");
        List<byte[]> all = new ArrayList<>();
        long forcedEnd;
        long forcedCount;
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            fill(log, segment0(dir), 4, all);
            log.awaitDurable(log.size());
            forcedEnd = Files.size(segment0(dir));
            forcedCount = all.size();
            // two more groups, never forced; after a power loss the page of the first is zero while
            // the second, with its commit frame, reached the disk
            fill(log, segment0(dir), 2, all);
            SegmentLogTest.crashCopy(dir, crashed);
        }
        byte[] b = Files.readAllBytes(segment0(crashed));
        Arrays.fill(b, (int) forcedEnd, (int) forcedEnd + 20, (byte) 0);
        Files.write(segment0(crashed), b);
        try (SegmentLog log = SegmentLog.open(crashed, BIG)) {
            assertThat(log.size()).isEqualTo(forcedCount);
            assertThat(log.recoveredTailBytes()).isEqualTo(b.length - forcedEnd);
            assertThat(log.acceptedLoss()).isEmpty();
            for (int i = 0; i < forcedCount; i++) {
                assertThat(log.read(i)).isEqualTo(all.get(i));
            }
        }
        assertThat(Files.size(segment0(crashed))).isEqualTo(forcedEnd);
    }

    @Test
    void acceptTruncationOpensCutsAtTheDamageAndReportsTheLoss() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = new ArrayList<>();
        List<Long> boundaries;
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            boundaries = fill(log, segment0(dir), 6, all);
        }
        // damage in group 3; groups 3..5 (1 + 2 + 3 = 6 events... computed) are lost
        flipBit(segment0(dir), boundaries.get(2) + 9);
        long kept = countUpTo(3);
        try (SegmentLog log = SegmentLog.open(dir, BIG, true)) {
            assertThat(log.size()).isEqualTo(kept);
            assertThat(log.acceptedLoss()).hasValueSatisfying(s -> assertThat(s)
                    .contains(segment0(dir).toString()).contains("offset " + boundaries.get(2))
                    .contains((all.size() - kept) + " acknowledged events"));
            log.append(List.of(event(99)));
            log.awaitDurable(log.size());
        }
        // the operator accepted it once; the log as it is now opens cleanly
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            assertThat(log.size()).isEqualTo(kept + 1);
            assertThat(log.acceptedLoss()).isEmpty();
            assertThat(log.read(kept)).isEqualTo(event(99));
        }
    }

    @Test
    void deletedLastSegmentIsRefused() throws IOException {
        Path dir = tmp.resolve("log");
        long firstSegmentCount;
        long total;
        try (SegmentLog log = SegmentLog.open(dir, 1024)) {
            while (SegmentLogTest.segmentCount(dir) < 3) {
                log.append(List.of(event((int) log.size())));
            }
            total = log.size();
        }
        List<Path> segs = SegmentLogTest.segments(dir);
        Path last = segs.get(segs.size() - 1);
        firstSegmentCount = Segment.parseStart(last);
        Files.delete(last);
        assertThatThrownBy(() -> SegmentLog.open(dir, 1024))
                .isInstanceOfSatisfying(AcknowledgedDataLostException.class,
                        e -> assertThat(e.missingEvents()).isEqualTo(total - firstSegmentCount));
    }

    @Test
    void logOfAnEarlierVersionWithoutForcedSizesOpensAndContinues() throws IOException {
        Path dir = tmp.resolve("log");
        Files.createDirectories(dir);
        // two groups as an earlier version wrote them: 9-byte commit frames, no forced-size file
        byte[] a = "{\"old\":1}".getBytes(StandardCharsets.UTF_8);
        byte[] b = "{\"old\":2}".getBytes(StandardCharsets.UTF_8);
        Files.write(segment0(dir), concat(frame(a), oldCommit(1), frame(b), oldCommit(2)));
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            assertThat(log.size()).isEqualTo(2);
            assertThat(log.read(1)).isEqualTo(b);
            log.append(List.of(event(3)));
        }
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            assertThat(log.size()).isEqualTo(3);
            assertThat(log.read(2)).isEqualTo(event(3));
        }
        assertThat(ForcedSizeFile.read(dir)).hasValueSatisfying(s -> assertThat(s.forced()).isEqualTo(3));
    }

    @Test
    void damagedForcedSizeFileIsIgnoredNotAnAlarm() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            fill(log, segment0(dir), 3, new ArrayList<>());
        }
        Files.write(dir.resolve(ForcedSizeFile.NAME), new byte[64]);
        try (SegmentLog log = SegmentLog.open(dir, BIG)) {
            assertThat(log.size()).isEqualTo(countUpTo(3));
        }
    }

    static byte[] frame(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return ByteBuffer.allocate(8 + payload.length).putInt(payload.length).putInt((int) crc.getValue())
                .put(payload).array();
    }

    static byte[] oldCommit(long count) {
        byte[] p = ByteBuffer.allocate(9).put((byte) 'C').putLong(count).array();
        CRC32C crc = new CRC32C();
        crc.update(p);
        return ByteBuffer.allocate(17).putInt(0x80000009).putInt((int) crc.getValue()).put(p).array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuffer out = ByteBuffer.allocate(Arrays.stream(parts).mapToInt(p -> p.length).sum());
        for (byte[] p : parts) {
            out.put(p);
        }
        return out.array();
    }
}
