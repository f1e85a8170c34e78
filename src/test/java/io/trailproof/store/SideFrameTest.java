package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Side frames: stored in a group, covered by its commit, taking no log index; old logs
 * read unchanged; damage to a side frame is detected like damage to a record.
 */
class SideFrameTest {

    @TempDir
    Path tmp;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private record Visited(long address, String payload) {
    }

    private static SegmentLog open(Path dir, List<Visited> visited) throws IOException {
        return SegmentLog.open(dir, SegmentLog.DEFAULT_SEGMENT_BYTES, false,
                (address, payload) -> visited.add(new Visited(address, new String(payload, StandardCharsets.UTF_8))));
    }

    @Test
    void sideRecordsTakeNoIndexAndAreReadByAddressAndVisitedOnOpen() throws IOException {
        Path dir = tmp.resolve("log");
        long a;
        long b;
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(bytes("e0")));
            EventLog.Appended g = log.append(List.of(bytes("e1"), bytes("e2")), List.of(bytes("key-1")));
            assertThat(g.first()).isEqualTo(1);
            a = g.sideAddresses()[0];
            // a group of a side record alone: no index
            EventLog.Appended alone = log.append(List.of(), List.of(bytes("key-2")));
            assertThat(alone.first()).isEqualTo(3);
            b = alone.sideAddresses()[0];
            log.append(List.of(bytes("e3")));
            log.awaitDurable(log.size());
            assertThat(log.size()).isEqualTo(4);
            assertThat(new String(log.readSide(a), StandardCharsets.UTF_8)).isEqualTo("key-1");
            assertThat(new String(log.readSide(b), StandardCharsets.UTF_8)).isEqualTo("key-2");
            assertScanSeesEventsOnly(log);
        }
        List<Visited> visited = new ArrayList<>();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(visited).containsExactly(new Visited(a, "key-1"), new Visited(b, "key-2"));
            assertThat(log.size()).isEqualTo(4);
            assertScanSeesEventsOnly(log);
            assertThat(new String(log.read(3), StandardCharsets.UTF_8)).isEqualTo("e3");
            assertThatThrownBy(() -> log.readSide(a - 8)).isInstanceOf(CorruptLogException.class);
        }
    }

    private static void assertScanSeesEventsOnly(SegmentLog log) throws IOException {
        List<String> seen = new ArrayList<>();
        log.scan(0, log.size(), (i, p) -> seen.add(i + ":" + new String(p, StandardCharsets.UTF_8)));
        assertThat(seen).containsExactly("0:e0", "1:e1", "2:e2", "3:e3");
        List<String> each = new ArrayList<>();
        log.readEach(new long[] {0, 2, 3}, (i, p) -> each.add(new String(p, StandardCharsets.UTF_8)));
        assertThat(each).containsExactly("e0", "e2", "e3");
    }

    @Test
    void aGroupOfSideRecordsAloneIsForcedOnRequest() throws IOException {
        try (SegmentLog log = SegmentLog.open(tmp.resolve("log"))) {
            log.append(List.of(bytes("e0")));
            log.awaitDurable(1);
            long forces = log.forceCount();
            log.append(List.of(), List.of(bytes("alone")));
            log.awaitDurable(1);   // names no new payload: returns at once, forces nothing
            assertThat(log.forceCount()).isEqualTo(forces);
            log.forceWritten();
            assertThat(log.forceCount()).isEqualTo(forces + 1);
        }
    }

    @Test
    void sideRecordsOfAnUncommittedTailAreCutWithIt() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(bytes("e0")), List.of(bytes("kept")));
        }
        Path seg = dir.resolve(Segment.fileName(0));
        long before = Files.size(seg);
        // A group of an event and a side record whose commit frame never reached the disk.
        appendFrame(seg, 0, bytes("e1"));
        appendFrame(seg, FrameCodec.SIDE_FLAG, bytes("torn"));
        List<Visited> visited = new ArrayList<>();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(log.size()).isEqualTo(1);
            assertThat(visited).extracting(Visited::payload).containsExactly("kept");
            assertThat(log.recoveredTailBytes()).isEqualTo(8 + 2 + 8 + 4);
        }
        assertThat(Files.size(seg)).isEqualTo(before);
        // and a side record alone without its commit
        appendFrame(seg, FrameCodec.SIDE_FLAG, bytes("alone"));
        visited.clear();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(visited).extracting(Visited::payload).containsExactly("kept");
        }
        assertThat(Files.size(seg)).isEqualTo(before);
    }

    @Test
    void aLogWrittenBeforeSideFramesReadsUnchanged() throws IOException {
        // Built by hand in the earlier layout: record frames and commit frames of both versions.
        Path dir = Files.createDirectories(tmp.resolve("old"));
        Path seg = dir.resolve(Segment.fileName(0));
        appendFrame(seg, 0, bytes("{\"a\":1}"));
        appendFrame(seg, FrameCodec.COMMIT_FLAG | 9, ByteBuffer.allocate(9).put((byte) 'C').putLong(1).array());
        appendFrame(seg, 0, bytes("{\"a\":2}"));
        appendFrame(seg, FrameCodec.COMMIT_FLAG | 17,
                ByteBuffer.allocate(17).put((byte) 'C').putLong(2).putLong(1).array());
        List<Visited> visited = new ArrayList<>();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(log.size()).isEqualTo(2);
            assertThat(visited).isEmpty();
            assertThat(new String(log.read(1), StandardCharsets.UTF_8)).isEqualTo("{\"a\":2}");
            log.append(List.of(bytes("{\"a\":3}")), List.of(bytes("k")));
        }
        visited.clear();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(log.size()).isEqualTo(3);
            assertThat(visited).extracting(Visited::payload).containsExactly("k");
        }
    }

    @Test
    void everyOneBitChangeOfAnAcknowledgedSideFrameStopsTheOpen() throws IOException {
        Path dir = tmp.resolve("log");
        long address;
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(bytes("e0")));
            address = log.append(List.of(bytes("e1")), List.of(bytes("idempotency record"))).sideAddresses()[0];
            log.append(List.of(bytes("e2")));
        }
        Path seg = dir.resolve(Segment.fileName(0));
        long offset = FrameCodec.addressOffset(address);
        int frameBytes = FrameCodec.HEADER_BYTES + "idempotency record".length();
        for (int bit = 0; bit < frameBytes * 8; bit++) {
            flipBit(seg, offset + bit / 8, bit % 8);
            try {
                assertThatThrownBy(() -> SegmentLog.open(dir).close()).as("bit " + bit)
                        .isInstanceOfAny(CorruptLogException.class, AcknowledgedDataLostException.class);
            } finally {
                flipBit(seg, offset + bit / 8, bit % 8);
            }
        }
        List<Visited> visited = new ArrayList<>();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(visited).extracting(Visited::payload).containsExactly("idempotency record");
        }
    }

    @Test
    void aSegmentHoldingOnlySideRecordsIsNotRolled() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, 64)) {
            for (int i = 0; i < 5; i++) {
                log.append(List.of(), List.of(bytes("side record number " + i)));
            }
            log.append(List.of(bytes("e0")));
            log.append(List.of(bytes("e1")), List.of(bytes("k")));
            log.append(List.of(), List.of(bytes("k2")));
            log.append(List.of(bytes("e2")));
        }
        List<Visited> visited = new ArrayList<>();
        try (SegmentLog log = open(dir, visited)) {
            assertThat(log.size()).isEqualTo(3);
            assertThat(visited).hasSize(7);
            for (Visited v : visited) {
                assertThat(new String(log.readSide(v.address()), StandardCharsets.UTF_8)).isEqualTo(v.payload());
            }
        }
    }

    private static void appendFrame(Path file, int flag, byte[] payload) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        int word = (flag & FrameCodec.COMMIT_FLAG) != 0 ? flag : flag | payload.length;
        byte[] frame = ByteBuffer.allocate(8 + payload.length).putInt(word).putInt((int) crc.getValue()).put(payload).array();
        Files.write(file, frame, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static void flipBit(Path file, long offset, int bit) throws IOException {
        byte[] all = Files.readAllBytes(file);
        all[(int) offset] ^= (byte) (1 << bit);
        Files.write(file, all);
    }
}
