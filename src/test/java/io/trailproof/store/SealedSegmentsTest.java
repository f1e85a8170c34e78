package io.trailproof.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What opening a log reads (src/site/storage.md#what-a-start-reads): the last segment in full and
 * the seal records of the sealed ones, however many there are; a sealed segment's frame offsets when
 * it is first read; and a full check of any sealed segment whose seal record is missing, damaged or
 * does not match it.
 */
class SealedSegmentsTest {
    private static final long SEGMENT_BYTES = 4096;

    @TempDir
    Path tmp;

    /** Fills a log with {@code groups} groups of three ~300-byte payloads, every third group with a side record. */
    private static List<byte[]> fill(Path dir, int groups, long seed) throws IOException {
        Random rnd = new Random(seed);
        List<byte[]> all = new ArrayList<>();
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            for (int g = 0; g < groups; g++) {
                List<byte[]> group = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    byte[] b = new byte[250 + rnd.nextInt(100)];
                    rnd.nextBytes(b);
                    group.add(b);
                }
                List<byte[]> sides = g % 3 == 0 ? List.of(("side " + g).getBytes(StandardCharsets.UTF_8)) : List.of();
                log.append(group, sides);
                all.addAll(group);
            }
        }
        return all;
    }

    private static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }

    private record Opened(long segmentBytes, long sealBytes, int sealedSegments, long lastSegmentBytes,
                          List<String> sides) {
    }

    private static Opened openAndMeasure(Path dir) throws IOException {
        List<String> sides = new ArrayList<>();
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES, false,
                (address, payload) -> sides.add(new String(payload, StandardCharsets.UTF_8)))) {
            List<Path> segs = files(dir, ".seg");
            return new Opened(log.segmentBytesRead(), log.sealRecordBytesRead(), segs.size() - 1,
                    Files.size(segs.get(segs.size() - 1)), sides);
        }
    }

    @Test
    void anOpenReadsTheLastSegmentAndSealRecordHeadsHoweverManySealedSegmentsThereAre() throws IOException {
        Path small = tmp.resolve("small");
        Path large = tmp.resolve("large");
        fill(small, 12, 1);
        fill(large, 400, 2);
        Opened s = openAndMeasure(small);
        Opened l = openAndMeasure(large);
        assertThat(l.sealedSegments()).isGreaterThan(10 * Math.max(1, s.sealedSegments()));
        // Segment bytes read: the last segment, nothing of the sealed ones, at any log length.
        assertThat(s.segmentBytes()).isEqualTo(s.lastSegmentBytes());
        assertThat(l.segmentBytes()).isEqualTo(l.lastSegmentBytes());
        assertThat(l.segmentBytes()).isLessThanOrEqualTo(SEGMENT_BYTES + 2048);
        // Seal records: their head and side records only (44 bytes a segment, plus each side record and a CRC).
        long sideBytes = l.sides().stream().mapToLong(x -> 12 + x.length()).sum();
        assertThat(l.sealBytes()).isLessThanOrEqualTo(48L * l.sealedSegments() + sideBytes);
        // Every side record is still handed over, in order.
        List<String> expected = new ArrayList<>();
        for (int g = 0; g < 400; g += 3) {
            expected.add("side " + g);
        }
        assertThat(l.sides()).containsExactlyElementsOf(expected);
    }

    @Test
    void anOpenLeavingSealedSidesReadsTheSealRecordHeadsAloneAndHandsTheSidesOverAfterwards() throws IOException {
        Path dir = tmp.resolve("log");
        fill(dir, 120, 8);
        List<String> all = openAndMeasure(dir).sides();
        List<String> atOpen = new ArrayList<>();
        try (SegmentLog log = SegmentLog.openLeavingSealedSides(dir, SEGMENT_BYTES, false, SegmentIo.FILES,
                (address, payload) -> atOpen.add(new String(payload, StandardCharsets.UTF_8)))) {
            List<Path> segs = files(dir, ".seg");
            // The open: the last segment, and 44 bytes of each seal record however many side records it holds.
            assertThat(log.segmentBytesRead()).isEqualTo(Files.size(segs.get(segs.size() - 1)));
            assertThat(log.sealRecordBytesRead()).isEqualTo(44L * (segs.size() - 1));
            assertThat(log.sealedSidesLeft()).isEqualTo(all.size() - atOpen.size()).isPositive();
            List<String> later = new ArrayList<>();
            log.readSealedSides((address, payload) -> later.add(new String(payload, StandardCharsets.UTF_8)));
            later.addAll(atOpen);
            assertThat(later).containsExactlyElementsOf(all);
            assertThat(log.sealedSideBytesRead()).isPositive();
            assertThat(log.sealedSidesLeft()).isZero();
        }
    }

    @Test
    void aSealRecordWhoseSideRecordsAreDamagedIsCheckedInFullWhenTheyAreRead() throws IOException {
        Path dir = tmp.resolve("log");
        fill(dir, 60, 9);
        List<String> all = openAndMeasure(dir).sides();
        Path record = SealRecord.path(dir, 0);
        byte[] b = Files.readAllBytes(record);
        b[SealRecord.HEAD_BYTES + 14] ^= 0x10;   // in the first side record's payload
        Files.write(record, b);
        List<String> sides = new ArrayList<>();
        try (SegmentLog log = SegmentLog.openLeavingSealedSides(dir, SEGMENT_BYTES, false, SegmentIo.FILES,
                (address, payload) -> sides.add(new String(payload, StandardCharsets.UTF_8)))) {
            assertThat(log.segmentBytesRead()).isEqualTo(Files.size(files(dir, ".seg").getLast()));
            List<String> later = new ArrayList<>();
            log.readSealedSides((address, payload) -> later.add(new String(payload, StandardCharsets.UTF_8)));
            later.addAll(sides);
            assertThat(later).containsExactlyElementsOf(all);
        }
        assertThat(Files.readAllBytes(record)).isNotEqualTo(b);   // written again
    }

    @Test
    void aSealRecordOfTheFormatBeforeStillOpens() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = fill(dir, 60, 10);
        List<String> sides = openAndMeasure(dir).sides();
        for (Path r : files(dir, SealRecord.SUFFIX)) {
            Files.write(r, formerFormat(Files.readAllBytes(r)));
        }
        Opened o = openAndMeasure(dir);
        assertThat(o.segmentBytes()).isEqualTo(o.lastSegmentBytes());
        assertThat(o.sides()).isEqualTo(sides);
        List<String> atOpen = new ArrayList<>();
        try (SegmentLog log = SegmentLog.openLeavingSealedSides(dir, SEGMENT_BYTES, false, SegmentIo.FILES,
                (address, payload) -> atOpen.add(new String(payload, StandardCharsets.UTF_8)))) {
            assertThat(log.segmentBytesRead()).isEqualTo(o.lastSegmentBytes());
            List<String> later = new ArrayList<>();
            log.readSealedSides((address, payload) -> later.add(new String(payload, StandardCharsets.UTF_8)));
            later.addAll(atOpen);
            assertThat(later).isEqualTo(sides);
            for (int i = 0; i < all.size(); i++) {
                assertThat(log.read(i)).isEqualTo(all.get(i));
            }
        }
    }

    /** A current seal record rewritten as the format before wrote it: one CRC32C over the head and the side records. */
    private static byte[] formerFormat(byte[] current) {
        ByteBuffer b = ByteBuffer.wrap(current);
        int sideBytes = b.getInt(36);
        int fields = SealRecord.HEAD_BYTES - 4;
        ByteBuffer out = ByteBuffer.allocate(current.length - 4);
        out.put("TPSEAL01".getBytes(StandardCharsets.US_ASCII)).put(current, 8, fields - 8);
        out.put(current, SealRecord.HEAD_BYTES, sideBytes);
        CRC32C crc = new CRC32C();
        crc.update(out.array(), 0, out.position());
        out.putInt((int) crc.getValue());
        out.put(current, SealRecord.HEAD_BYTES + sideBytes + 4, current.length - SealRecord.HEAD_BYTES - sideBytes - 4);
        return out.array();
    }

    @Test
    void aSealedSegmentIsReadOnlyWhenAReadReachesItAndReadsAnswerAsBefore() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = fill(dir, 200, 3);
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.sealedSegmentsLoaded()).isZero();
            assertThat(log.read(0)).isEqualTo(all.get(0));
            assertThat(log.sealedSegmentsLoaded()).isEqualTo(1);
            for (int i = 0; i < all.size(); i++) {
                assertThat(log.read(i)).as("read(%d)", i).isEqualTo(all.get(i));
            }
            List<byte[]> scanned = new ArrayList<>();
            log.scan(0, log.size(), (index, p) -> scanned.add(p));
            assertThat(scanned).containsExactlyElementsOf(all);
            long[] every = LongStream.range(0, all.size()).filter(i -> i % 7 == 0).toArray();
            List<byte[]> sparse = new ArrayList<>();
            log.readEach(every, (index, p) -> sparse.add(p));
            assertThat(sparse).hasSize(every.length);
        }
    }

    @Test
    void aSealedSegmentWithoutItsRecordIsCheckedInFullOnceAndGetsItBack() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = fill(dir, 200, 4);
        Opened before = openAndMeasure(dir);
        for (Path r : files(dir, SealRecord.SUFFIX)) {
            Files.delete(r);
        }
        long total = 0;
        for (Path f : files(dir, ".seg")) {
            total += Files.size(f);
        }
        Opened checked = openAndMeasure(dir);
        assertThat(checked.segmentBytes()).isEqualTo(total);   // a log written before seal records
        assertThat(checked.sides()).isEqualTo(before.sides());
        assertThat(files(dir, SealRecord.SUFFIX)).hasSize(checked.sealedSegments());
        Opened again = openAndMeasure(dir);
        assertThat(again.segmentBytes()).isEqualTo(again.lastSegmentBytes());
        assertThat(again.sides()).isEqualTo(before.sides());
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            for (int i = 0; i < all.size(); i++) {
                assertThat(log.read(i)).isEqualTo(all.get(i));
            }
        }
    }

    @Test
    void aDamagedFrameInASealedSegmentIsFoundByTheReadThatReachesIt() throws IOException {
        Path dir = tmp.resolve("log");
        fill(dir, 60, 5);
        Path first = files(dir, ".seg").get(0);
        byte[] b = Files.readAllBytes(first);
        b[FrameCodec.HEADER_BYTES + 1] ^= 0x5a;   // the first payload
        Files.write(first, b);
        try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
            assertThatThrownBy(() -> log.read(0)).isInstanceOfSatisfying(CorruptLogException.class, e -> {
                assertThat(e.file()).isEqualTo(first);
                assertThat(e.offset()).isZero();
            });
            assertThatThrownBy(() -> log.scan(0, log.size(), (index, p) -> { }))
                    .isInstanceOf(CorruptLogException.class);
        }
        // Without the seal record, the open checks that segment in full and stops, as it always did.
        Files.delete(SealRecord.path(dir, 0));
        assertThatThrownBy(() -> SegmentLog.open(dir, SEGMENT_BYTES))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> assertThat(e.file()).isEqualTo(first));
    }

    @Test
    void aOneBitChangeAnywhereInASealRecordLeadsToAFullCheckOrACheckedLoad() throws IOException {
        Path dir = tmp.resolve("log");
        List<byte[]> all = fill(dir, 30, 6);
        Path record = SealRecord.path(dir, 0);
        byte[] good = Files.readAllBytes(record);
        long inFirst = Segment.parseStart(files(dir, ".seg").get(1));
        Random rnd = new Random(61);
        for (int k = 0; k < 96; k++) {
            int bit = rnd.nextInt(good.length * 8);
            byte[] bad = good.clone();
            bad[bit / 8] ^= (byte) (1 << (bit % 8));   // seeded: 96 of the record's bits, the same every run
            Files.write(record, bad);
            try (SegmentLog log = SegmentLog.open(dir, SEGMENT_BYTES)) {
                assertThat(log.size()).as("bit %d", bit).isEqualTo(all.size());
                for (int i = 0; i < inFirst; i++) {
                    assertThat(log.read(i)).as("bit %d, read(%d)", bit, i).isEqualTo(all.get(i));
                }
            }
        }
    }

    @Test
    void aSealedSegmentOfAnotherLengthThanItsRecordIsCheckedInFull() throws IOException {
        Path dir = tmp.resolve("log");
        fill(dir, 60, 7);
        Path first = files(dir, ".seg").get(0);
        byte[] b = Files.readAllBytes(first);
        Files.write(first, Arrays.copyOf(b, b.length - 1));
        assertThatThrownBy(() -> SegmentLog.open(dir, SEGMENT_BYTES))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> assertThat(e.file()).isEqualTo(first));
    }
}
