package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.trailproof.background.Pacer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rewrites of stored payloads (src/site/erasure.md#physically-gone): the replaced payloads read back
 * new, every other payload byte for byte as before, side records rewritten and found at their new
 * addresses, the old bytes in no file of the directory, and an interrupted rewrite leaves the old
 * segment whole.
 */
class SegmentRewriteTest {

    @TempDir
    Path tmp;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Writes groups of 1..5 payloads (a side record with each third group) over small segments. */
    private static Map<Long, String> fill(SegmentLog log, int groups, Map<Long, String> sides) throws IOException {
        Map<Long, String> payloads = new HashMap<>();
        Random r = new Random(7);
        for (int g = 0; g < groups; g++) {
            int n = 1 + r.nextInt(5);
            List<byte[]> group = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                group.add(bytes("payload-" + (log.size() + i) + "-" + "x".repeat(r.nextInt(40))));
            }
            List<byte[]> side = g % 3 == 0 ? List.of(bytes("side-of-group-" + g + "-payload-" + log.size())) : List.of();
            EventLog.Appended a = log.append(group, side);
            for (int i = 0; i < n; i++) {
                payloads.put(a.first() + i, text(group.get(i)));
            }
            if (!side.isEmpty()) {
                sides.put(a.sideAddresses()[0], text(side.get(0)));
            }
        }
        log.awaitDurable(log.size());
        return payloads;
    }

    /**
     * A paced rewrite (an erasure giving way to ingestion) pauses between files, never before the
     * first or after the last, and appends and reads of other threads go on during its pauses.
     */
    @Test
    void aPacedRewritePausesBetweenFilesWhileAppendsGoOn() throws Exception {
        Path dir = tmp.resolve("log");
        Map<Long, String> payloads;
        try (SegmentLog log = SegmentLog.open(dir, 600)) {
            payloads = fill(log, 60, new HashMap<>());
            TreeMap<Long, byte[]> repl = new TreeMap<>();
            for (long i = 0; i < log.size(); i += 7) {
                repl.put(i, bytes("erased-" + i));
            }
            long[] now = {0};
            List<Long> pauses = new ArrayList<>();
            Pacer pacer = new Pacer(0.5, () -> now[0] += Pacer.SLICE_NANOS, nanos -> {
                pauses.add(nanos);
                CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                    try {
                        log.awaitDurable(log.append(List.of(bytes("appended during pause " + pauses.size()))) + 1);
                        assertThat(text(log.read(1))).isEqualTo(payloads.get(1L));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                try {
                    other.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    throw new IOException("an append during the pause did not finish", e);
                }
            });
            EventLog.Rewritten done = log.rewrite(repl, EventLog.SideRewriter.KEEP, StepProbe.NONE, pacer);
            assertThat(done.files()).isGreaterThan(2);
            assertThat(pauses).hasSize(done.files() - 1);
            for (Map.Entry<Long, byte[]> e : repl.entrySet()) {
                assertThat(log.read(e.getKey())).isEqualTo(e.getValue());
            }
            long before = payloads.size();
            for (int i = 0; i < pauses.size(); i++) {
                assertThat(text(log.read(before + i))).isEqualTo("appended during pause " + (i + 1));
            }
        }
    }

    @Test
    void replacedPayloadsReadNewOthersUnchangedSidesMovedAndOldBytesGone() throws IOException {
        Path dir = tmp.resolve("log");
        Map<Long, String> sides = new HashMap<>();
        Map<Long, String> payloads;
        TreeMap<Long, byte[]> repl = new TreeMap<>();
        Map<Long, String> movedSides = new HashMap<>();
        try (SegmentLog log = SegmentLog.open(dir, 600)) {
            payloads = fill(log, 60, sides);
            assertThat(Files.list(dir).filter(p -> p.toString().endsWith(".seg")).count()).isGreaterThan(3);
            for (long i = 0; i < log.size(); i += 7) {
                repl.put(i, bytes("erased-" + i));
            }
            repl.put(log.size() - 1, bytes("erased-last"));   // in the segment being appended to: rolls first
            EventLog.Rewritten done = log.rewrite(repl, p -> text(p).startsWith("side-of-group-3-")
                    ? bytes("rewritten side") : p);
            assertThat(done.files()).isGreaterThan(1);
            for (Map.Entry<Long, String> e : sides.entrySet()) {
                long at = done.movedSides().getOrDefault(e.getKey(), e.getKey());
                movedSides.put(at, e.getValue().startsWith("side-of-group-3-") ? "rewritten side" : e.getValue());
            }
            assertAll(log, payloads, repl, movedSides);
            log.append(List.of(bytes("after the rewrite")));
            log.awaitDurable(log.size());
            payloads.put(log.size() - 1, "after the rewrite");
        }
        try (SegmentLog log = SegmentLog.open(dir, 600)) {
            assertAll(log, payloads, repl, movedSides);
        }
        for (Map.Entry<Long, byte[]> e : repl.entrySet()) {
            assertThat(anyFileContains(dir, bytes(payloads.get(e.getKey()) + ""))).as("old payload " + e.getKey())
                    .isFalse();
        }
        assertThat(anyFileContains(dir, bytes("side-of-group-3-"))).isFalse();
        assertThat(anyFileContains(dir, bytes("payload-1-"))).isTrue();
    }

    @Test
    void readersDuringRewritesSeeOldOrNewPayloadsNeverOthers() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, 400)) {
            Map<Long, String> payloads = fill(log, 80, new HashMap<>());
            long size = log.size();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread reader = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        log.scan(0, size, (i, p) -> {
                            String s = text(p);
                            if (!s.equals(payloads.get(i)) && !s.equals("new-" + i)) {
                                throw new IOException("payload " + i + " read as " + s);
                            }
                        });
                        for (long i = 0; i < size; i += 3) {
                            String s = text(log.read(i));
                            if (!s.equals(payloads.get(i)) && !s.equals("new-" + i)) {
                                throw new IOException("payload " + i + " read as " + s);
                            }
                        }
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            reader.start();
            for (long i = 0; i < size; i += 5) {
                TreeMap<Long, byte[]> one = new TreeMap<>();
                one.put(i, bytes("new-" + i));
                log.rewrite(one, EventLog.SideRewriter.KEEP);
            }
            stop.set(true);
            reader.join();
            assertThat(failed.get()).isNull();
        }
    }

    @Test
    void aRewriteInterruptedBeforeItsRenameLeavesTheOldSegmentAndIsDiscardedOnOpen() throws IOException {
        Path dir = tmp.resolve("log");
        Map<Long, String> payloads;
        FailingRewrites io = new FailingRewrites();
        try (SegmentLog log = SegmentLog.open(dir, 600, false, io, EventLog.SideRecordVisitor.NONE)) {
            payloads = fill(log, 40, new HashMap<>());
            TreeMap<Long, byte[]> repl = new TreeMap<>();
            repl.put(3L, bytes("new-3"));
            io.fail = true;
            assertThatThrownBy(() -> log.rewrite(repl, EventLog.SideRewriter.KEEP)).isInstanceOf(IOException.class);
            assertThat(text(log.read(3))).isEqualTo(payloads.get(3L));
            io.fail = false;
        }
        // a crash between the new file's force and its rename leaves it beside the segment
        Path leftover = dir.resolve(Segment.fileName(0) + SegmentRewrite.SUFFIX);
        Files.write(leftover, bytes("a rewrite a crash interrupted"));
        try (SegmentLog log = SegmentLog.open(dir, 600)) {
            assertThat(leftover).doesNotExist();
            for (Map.Entry<Long, String> e : payloads.entrySet()) {
                assertThat(text(log.read(e.getKey()))).isEqualTo(e.getValue());
            }
        }
    }

    /** Fails the write of a rewrite's new file, as a full disk does. */
    private static final class FailingRewrites implements SegmentIo {
        volatile boolean fail;

        @Override
        public WritableFile open(Path file) throws IOException {
            WritableFile real = SegmentIo.FILES.open(file);
            boolean rewrite = file.getFileName().toString().endsWith(SegmentRewrite.SUFFIX);
            return new WritableFile() {
                @Override
                public void write(long position, byte[] b, int off, int len) throws IOException {
                    if (rewrite && fail) {
                        real.write(position, b, off, len / 2);
                        throw new IOException("No space left on device (injected)");
                    }
                    real.write(position, b, off, len);
                }

                @Override
                public void force() throws IOException {
                    real.force();
                }

                @Override
                public void truncate(long length) throws IOException {
                    real.truncate(length);
                }

                @Override
                public void close() throws IOException {
                    real.close();
                }
            };
        }
    }

    private static void assertAll(SegmentLog log, Map<Long, String> payloads, Map<Long, byte[]> repl,
                                  Map<Long, String> sides) throws IOException {
        for (long i = 0; i < log.size(); i++) {
            String expected = repl.containsKey(i) ? text(repl.get(i)) : payloads.get(i);
            assertThat(text(log.read(i))).as("payload " + i).isEqualTo(expected);
        }
        List<String> scanned = new ArrayList<>();
        log.scan(0, log.size(), (i, p) -> scanned.add(text(p)));
        for (int i = 0; i < scanned.size(); i++) {
            assertThat(scanned.get(i)).isEqualTo(repl.containsKey((long) i) ? text(repl.get((long) i))
                    : payloads.get((long) i));
        }
        for (Map.Entry<Long, String> e : sides.entrySet()) {
            assertThat(text(log.readSide(e.getKey()))).isEqualTo(e.getValue());
        }
    }

    static boolean anyFileContains(Path dir, byte[] needle) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                byte[] all = Files.readAllBytes(f);
                outer:
                for (int i = 0; i + needle.length <= all.length; i++) {
                    for (int j = 0; j < needle.length; j++) {
                        if (all[i + j] != needle[j]) {
                            continue outer;
                        }
                    }
                    return true;
                }
            }
        }
        return false;
    }
}
