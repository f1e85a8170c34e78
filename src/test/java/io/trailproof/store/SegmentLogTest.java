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
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentLogTest {
    private static final long SMALL = 4096;

    @TempDir
    Path tmp;

    // ------------------------------------------------------------------ helpers

    private static byte[] payload(Random rnd) {
        int kind = rnd.nextInt(10);
        if (kind == 0) {
            // looks exactly like a commit payload: must still be an ordinary record
            byte[] b = new byte[9];
            rnd.nextBytes(b);
            b[0] = 'C';
            return b;
        }
        byte[] b = new byte[1 + rnd.nextInt(kind == 1 ? 3000 : 300)];
        rnd.nextBytes(b);
        if (kind > 2) {
            b[0] = '{';
        }
        return b;
    }

    /** Appends random groups; returns all payloads in index order. */
    private static List<byte[]> fill(SegmentLog log, Random rnd, int groups) throws IOException {
        List<byte[]> all = new ArrayList<>();
        long start = log.size();
        for (int g = 0; g < groups; g++) {
            List<byte[]> group = new ArrayList<>();
            int n = 1 + rnd.nextInt(5);
            for (int i = 0; i < n; i++) {
                group.add(payload(rnd));
            }
            long first = log.append(group);
            assertThat(first).isEqualTo(start + all.size());
            all.addAll(group);
        }
        return all;
    }

    private static void assertContent(SegmentLog log, List<byte[]> expected) throws IOException {
        assertThat(log.size()).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(log.read(i)).as("read(%d)", i).isEqualTo(expected.get(i));
        }
        List<byte[]> scanned = new ArrayList<>();
        log.scan(0, log.size(), (index, p) -> {
            assertThat(index).isEqualTo(scanned.size());
            scanned.add(p);
        });
        assertThat(scanned).containsExactlyElementsOf(expected);
    }

    private static List<Path> segmentFiles(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
        }
    }

    static List<Path> segments(Path dir) throws IOException {
        return segmentFiles(dir);
    }

    static int segmentCount(Path dir) throws IOException {
        return segmentFiles(dir).size();
    }

    private static Path lastSegment(Path dir) throws IOException {
        List<Path> files = segmentFiles(dir);
        return files.get(files.size() - 1);
    }

    private static byte[] frame(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return ByteBuffer.allocate(8 + payload.length).putInt(payload.length).putInt((int) crc.getValue())
                .put(payload).array();
    }

    private static byte[] commitFrame(long count) {
        byte[] p = ByteBuffer.allocate(9).put((byte) 'C').putLong(count).array();
        CRC32C crc = new CRC32C();
        crc.update(p);
        return ByteBuffer.allocate(17).putInt(0x80000009).putInt((int) crc.getValue()).put(p).array();
    }

    private static void appendBytes(Path file, byte[]... chunks) throws IOException {
        for (byte[] c : chunks) {
            Files.write(file, c, StandardOpenOption.APPEND);
        }
    }

    /**
     * What a {@code kill -9} of the process leaves: the files as the OS has them now (written, not
     * necessarily forced; the forced-size file as of the last force), copied while the log is open.
     */
    static Path crashCopy(Path dir, Path to) throws IOException {
        Files.createDirectories(to);
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
        return to;
    }

    private static void flipByte(Path file, long offset) throws IOException {
        byte[] b = Files.readAllBytes(file);
        b[(int) offset] ^= 0x5a;
        Files.write(file, b);
    }

    // ------------------------------------------------------------------ round trip

    @Test
    void roundTripAcrossSegmentsAndReopen() throws IOException {
        Random rnd = new Random(1);
        Path dir = tmp.resolve("log");
        List<byte[]> all;
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertThat(log.size()).isZero();
            all = fill(log, rnd, 300);
            assertContent(log, all);
            log.awaitDurable(log.size());
            assertThat(log.durableSize()).isEqualTo(all.size());
        }
        List<Path> files = segmentFiles(dir);
        assertThat(files).hasSizeGreaterThan(5);
        assertThat(files.get(0).getFileName().toString()).isEqualTo("00000000000000000000.seg");
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertThat(log.recoveredTailBytes()).isZero();
            assertThat(log.durableSize()).isEqualTo(all.size());
            assertContent(log, all);
            // each file is named by the index of its first payload and no group spans files
            for (Path f : files) {
                long start = Long.parseLong(f.getFileName().toString().substring(0, 20));
                if (start < all.size()) {
                    assertThat(log.read(start)).isEqualTo(all.get((int) start));
                }
            }
            // sub-range scans
            for (int k = 0; k < 50; k++) {
                int from = rnd.nextInt(all.size());
                int to = from + rnd.nextInt(all.size() - from + 1);
                List<byte[]> got = new ArrayList<>();
                log.scan(from, to, (i, p) -> got.add(p));
                assertThat(got).containsExactlyElementsOf(all.subList(from, to));
                // the views of scanViews are the same bytes (copied here, as they are valid only in the call)
                List<byte[]> viewed = new ArrayList<>();
                log.scanViews(from, to, (i, buf, off, len) -> {
                    assertThat(i).isEqualTo(from + viewed.size());
                    viewed.add(Arrays.copyOfRange(buf, off, off + len));
                });
                assertThat(viewed).containsExactlyElementsOf(all.subList(from, to));
            }
            all.addAll(fill(log, rnd, 50));
        }
        // appending after reopen continues the numbering
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertContent(log, all);
            List<byte[]> more = List.of("{\"x\":1}".getBytes(StandardCharsets.UTF_8));
            long n = log.size();
            assertThat(log.append(more)).isEqualTo(n);
            assertThat(log.read(n)).isEqualTo(more.get(0));
        }
    }

    @Test
    void emptyDirectoryCreatesFirstSegment() throws IOException {
        Path dir = tmp.resolve("a/b/log");
        try (SegmentLog log = SegmentLog.open(dir)) {
            assertThat(log.size()).isZero();
            assertThat(log.durableSize()).isZero();
            log.awaitDurable(0);
        }
        assertThat(segmentFiles(dir)).extracting(p -> p.getFileName().toString())
                .containsExactly("00000000000000000000.seg");
    }

    @Test
    void rejectsInvalidInput() throws IOException {
        try (SegmentLog log = SegmentLog.open(tmp)) {
            assertThatThrownBy(() -> log.append(List.of())).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> log.append(List.of(new byte[0]))).isInstanceOf(IllegalArgumentException.class);
            assertThat(log.size()).isZero();
            assertThatThrownBy(() -> log.read(0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> log.awaitDurable(1)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    // ------------------------------------------------------------------ torn and uncommitted tails

    @Test
    void tornTailAtEveryCutPointOfTheLastGroup() throws IOException {
        Random rnd = new Random(2);
        Path dir = tmp.resolve("crashed");
        List<byte[]> before;
        List<byte[]> lastGroup = List.of(payload(rnd), "{\"last\":true}".getBytes(StandardCharsets.UTF_8), payload(rnd));
        long lenBefore;
        try (SegmentLog log = SegmentLog.open(tmp.resolve("log"), SMALL)) {
            before = fill(log, rnd, 40);
            log.awaitDurable(log.size());
            lenBefore = Files.size(lastSegment(tmp.resolve("log")));
            log.append(lastGroup);   // never forced: the process dies before its waiter is answered
            crashCopy(tmp.resolve("log"), dir);
        }
        Path last = lastSegment(dir);
        byte[] full = Files.readAllBytes(last);
        // the last group went into this segment (it did not roll in between)
        assertThat(lenBefore).isLessThan(full.length);
        int groupBytes = full.length - (int) lenBefore;
        assertThat(groupBytes).isEqualTo(lastGroup.stream().mapToInt(p -> 8 + p.length).sum() + 25);
        for (long cut = lenBefore; cut < full.length; cut++) {
            Files.write(last, Arrays.copyOf(full, (int) cut));
            try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
                assertThat(log.size()).as("cut at %d", cut).isEqualTo(before.size());
                assertThat(Files.size(last)).as("cut at %d", cut).isEqualTo(lenBefore);
                assertThat(log.recoveredTailBytes()).isEqualTo(cut - lenBefore);
                for (int i = before.size() - 3; i < before.size(); i++) {
                    assertThat(log.read(i)).isEqualTo(before.get(i));
                }
            }
        }
        // after the last cut: everything intact, and appends work and survive a reopen
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertContent(log, before);
            assertThat(log.append(lastGroup)).isEqualTo(before.size());
            log.awaitDurable(log.size());
        }
        List<byte[]> expected = new ArrayList<>(before);
        expected.addAll(lastGroup);
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertContent(log, expected);
        }
    }

    @Test
    void tornFirstGroupOfAFreshSegmentLeavesItEmpty() throws IOException {
        Path dir = tmp.resolve("crashed");
        try (SegmentLog log = SegmentLog.open(tmp.resolve("log"))) {
            log.append(List.of("{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
            crashCopy(tmp.resolve("log"), dir);
        }
        Path f = lastSegment(dir);
        byte[] full = Files.readAllBytes(f);
        Files.write(f, Arrays.copyOf(full, full.length - 1));
        try (SegmentLog log = SegmentLog.open(dir)) {
            assertThat(log.size()).isZero();
            assertThat(Files.size(f)).isZero();
            assertThat(log.append(List.of(new byte[] {'{'}))).isZero();
        }
    }

    @Test
    void garbageAfterLastCommitIsCutOff() throws IOException {
        Random rnd = new Random(3);
        Path dir = tmp.resolve("log");
        List<byte[]> all;
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            all = fill(log, rnd, 30);
        }
        Path last = lastSegment(dir);
        long len = Files.size(last);
        List<byte[]> garbages = new ArrayList<>();
        for (int n : new int[] {1, 3, 7, 8, 9, 16, 17, 100, 5000}) {
            byte[] g = new byte[n];
            rnd.nextBytes(g);
            garbages.add(g);
            garbages.add(new byte[n]);   // zeros, as left by a file extended but not written
        }
        garbages.add(new byte[] {(byte) 0x80, 0, 0, 9, 1, 2, 3, 4, 'C', 0, 0, 0, 0, 0, 0, 0, 1}); // commit with bad CRC
        garbages.add(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0}); // huge length
        for (byte[] g : garbages) {
            appendBytes(last, g);
            try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
                assertThat(Files.size(last)).isEqualTo(len);
                assertThat(log.size()).isEqualTo(all.size());
            }
        }
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertContent(log, all);
        }
    }

    @Test
    void validFramesWithoutCommitFrameAreCutOff() throws IOException {
        Random rnd = new Random(4);
        Path dir = tmp.resolve("log");
        List<byte[]> all;
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            all = fill(log, rnd, 10);
        }
        Path last = lastSegment(dir);
        long len = Files.size(last);
        // one uncommitted frame; two; two plus a torn commit frame; frames plus garbage
        byte[] a = frame("{\"u\":1}".getBytes(StandardCharsets.UTF_8));
        byte[] b = frame(payload(rnd));
        byte[] commit = commitFrame(all.size() + 2);
        List<byte[][]> tails = List.of(
                new byte[][] {a},
                new byte[][] {a, b},
                new byte[][] {a, b, Arrays.copyOf(commit, 16)},
                new byte[][] {a, b, Arrays.copyOf(commit, 5)},
                new byte[][] {a, new byte[] {1, 2, 3}});
        for (byte[][] tail : tails) {
            appendBytes(last, tail);
            try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
                assertThat(Files.size(last)).isEqualTo(len);
                assertThat(log.size()).isEqualTo(all.size());
            }
        }
        // control: the same frames WITH their commit frame are a committed group written by hand
        appendBytes(last, a, b, commit);
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            assertThat(log.size()).isEqualTo(all.size() + 2);
            assertThat(log.read(all.size())).isEqualTo("{\"u\":1}".getBytes(StandardCharsets.UTF_8));
        }
    }

    // ------------------------------------------------------------------ corruption

    @Test
    void badCrcBeforeCommittedGroupsIsCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        byte[] p0 = "{\"n\":0}".getBytes(StandardCharsets.UTF_8);
        byte[] p1 = "{\"n\":1,\"pad\":\"xxxxxxxxxxxxxxxx\"}".getBytes(StandardCharsets.UTF_8);
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(p0));
            log.append(List.of(p1));
            fill(log, new Random(5), 5);
        }
        Path f = lastSegment(dir);
        long frame1 = 8 + p0.length + 25;
        flipByte(f, frame1 + 8 + 3);
        long sizeBefore = Files.size(f);
        assertThatThrownBy(() -> SegmentLog.open(dir))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> {
                    assertThat(e.file()).isEqualTo(f);
                    assertThat(e.offset()).isEqualTo(frame1);
                    assertThat(e.getMessage()).contains(f.toString()).contains("offset " + frame1).contains("CRC");
                });
        assertThat(Files.size(f)).as("nothing truncated").isEqualTo(sizeBefore);
    }

    @Test
    void damagedLengthWordBeforeCommittedGroupsIsCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir)) {
            fill(log, new Random(6), 5);
        }
        Path f = lastSegment(dir);
        flipByte(f, 0);   // first frame's length word
        assertThatThrownBy(() -> SegmentLog.open(dir))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> assertThat(e.offset()).isZero());
    }

    @Test
    void damageInsideLastGroupWithIntactCommitFrameIsCorruption() throws IOException {
        // damage in the middle of the last group, whose commit frame is intact: corruption, not a torn tail
        Path dir = tmp.resolve("log");
        byte[] p = "{\"only\":1}".getBytes(StandardCharsets.UTF_8);
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(p, p));
        }
        Path f = lastSegment(dir);
        flipByte(f, 8 + 2);
        assertThatThrownBy(() -> SegmentLog.open(dir)).isInstanceOf(CorruptLogException.class);
    }

    @Test
    void badCrcInNonLastSegmentIsCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            fill(log, new Random(7), 100);
        }
        List<Path> files = segmentFiles(dir);
        assertThat(files).hasSizeGreaterThan(2);
        Path first = files.get(0);
        flipByte(first, 8);
        // A sealed segment whose seal record agrees with it is not read at open: the read that
        // reaches the damaged frame finds it (SealedSegmentsTest); without the record, the open does.
        Files.delete(SealRecord.path(dir, 0));
        assertThatThrownBy(() -> SegmentLog.open(dir, SMALL))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> {
                    assertThat(e.file()).isEqualTo(first);
                    assertThat(e.offset()).isZero();
                });
    }

    @Test
    void tornEndOfNonLastSegmentIsCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            fill(log, new Random(8), 100);
        }
        Path first = segmentFiles(dir).get(0);
        byte[] b = Files.readAllBytes(first);
        Files.write(first, Arrays.copyOf(b, b.length - 1));
        assertThatThrownBy(() -> SegmentLog.open(dir, SMALL))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> assertThat(e.file()).isEqualTo(first));
        assertThat(Files.size(first)).isEqualTo(b.length - 1);
    }

    @Test
    void missingSegmentIsCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, SMALL)) {
            fill(log, new Random(9), 100);
        }
        List<Path> files = segmentFiles(dir);
        Files.delete(files.get(1));
        assertThatThrownBy(() -> SegmentLog.open(dir, SMALL))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> assertThat(e.file()).isEqualTo(files.get(2)));
    }

    @Test
    void commitCountMismatchIsCorruption() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(new byte[] {'{', '}'}));
        }
        Path f = lastSegment(dir);
        long len = Files.size(f);
        appendBytes(f, frame(new byte[] {'{', '}'}), commitFrame(5));
        assertThatThrownBy(() -> SegmentLog.open(dir))
                .isInstanceOfSatisfying(CorruptLogException.class, e -> {
                    assertThat(e.offset()).isEqualTo(len + 10);
                    assertThat(e.getMessage()).contains("commit");
                });
    }

    @Test
    void readAndScanDetectDamageAfterOpen() throws IOException {
        Path dir = tmp.resolve("log");
        byte[] p = "{\"k\":\"v\"}".getBytes(StandardCharsets.UTF_8);
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(p, p, p));
            Path f = lastSegment(dir);
            long frame1 = 8 + p.length;
            flipByte(f, frame1 + 8 + 1);
            assertThat(log.read(0)).isEqualTo(p);
            assertThatThrownBy(() -> log.read(1))
                    .isInstanceOfSatisfying(CorruptLogException.class, e -> {
                        assertThat(e.file()).isEqualTo(f);
                        assertThat(e.offset()).isEqualTo(frame1);
                    });
            assertThatThrownBy(() -> log.scan(0, 3, (i, x) -> { }))
                    .isInstanceOfSatisfying(CorruptLogException.class, e -> assertThat(e.offset()).isEqualTo(frame1));
        }
    }

    @Test
    void sameLengthRewriteWithValidCrcIsNotDetectedByTheLog() throws IOException {
        // Documents the boundary: the log checks integrity, not authenticity. Higher layers hash.
        Path dir = tmp.resolve("log");
        byte[] original = "{\"amount\":100}".getBytes(StandardCharsets.UTF_8);
        byte[] forged = "{\"amount\":999}".getBytes(StandardCharsets.UTF_8);
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of("{\"a\":0}".getBytes(StandardCharsets.UTF_8)));
            log.append(List.of(original));
        }
        Path f = lastSegment(dir);
        byte[] b = Files.readAllBytes(f);
        int frameOffset = 8 + 7 + 25;
        System.arraycopy(frame(forged), 0, b, frameOffset, 8 + forged.length);
        Files.write(f, b);
        try (SegmentLog log = SegmentLog.open(dir)) {
            assertThat(log.size()).isEqualTo(2);
            assertThat(log.read(1)).isEqualTo(forged);
        }
    }

    // ------------------------------------------------------------------ failure and interrupts

    @Test
    void writeFailureStopsTheLog() throws IOException {
        Path dir = tmp.resolve("log");
        FaultInjectingIo io = new FaultInjectingIo();
        try (SegmentLog log = SegmentLog.open(dir, SMALL, false, io, 8)) {
            log.append(List.of(new byte[] {'{'}));
            log.awaitDurable(1);
            log.append(List.of(new byte[] {'{'}));
            io.failForces(true);   // the next sync fails like a dying disk
            assertThatThrownBy(() -> log.awaitDurable(2)).isInstanceOf(IOException.class);
            assertThat(log.failure()).isNotNull();
            assertThatThrownBy(() -> log.append(List.of(new byte[] {'{'})))
                    .isInstanceOf(IOException.class).hasMessageContaining("failed");
            assertThat(log.size()).isEqualTo(2);
            assertThat(log.durableSize()).isEqualTo(1);
            log.awaitDurable(1);   // already durable: still true, so no error
            assertThatThrownBy(() -> log.awaitDurable(2)).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> log.read(1)).isInstanceOf(IOException.class).hasMessageContaining("refused");
            assertThat(log.read(0)).containsExactly('{');
        }
        try (SegmentLog log = SegmentLog.open(dir)) {
            assertThat(log.size()).as("the group reported failed is gone").isEqualTo(1);
        }
    }

    @Test
    void interruptedReaderDoesNotBreakTheLog() throws IOException {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.append(List.of(new byte[] {'{', '1'}));
            Thread.currentThread().interrupt();
            try {
                log.read(0);
            } catch (IOException expected) {
                // ClosedByInterruptException: this thread was interrupted
            } finally {
                Thread.interrupted();
            }
            assertThat(log.read(0)).containsExactly('{', '1');
            log.append(List.of(new byte[] {'{', '2'}));
            log.awaitDurable(2);
            assertThat(log.read(1)).containsExactly('{', '2');
        }
    }

    @Test
    void closedLogRefusesAppends() throws IOException {
        SegmentLog log = SegmentLog.open(tmp);
        log.append(List.of(new byte[] {'{'}));
        log.close();
        log.close();
        assertThatThrownBy(() -> log.append(List.of(new byte[] {'{'}))).isInstanceOf(IOException.class);
    }
}
