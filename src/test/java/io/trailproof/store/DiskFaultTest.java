package io.trailproof.store;

import java.time.Duration;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the disk fills or a force fails in the middle of group commit, every
 * group written before is either forced and acknowledged, or reported failed to its waiter and
 * absent after reopening; never "failed now, present after a restart" (a client's retry would
 * store it twice).
 */
class DiskFaultTest {
    @TempDir
    Path tmp;

    private final FaultInjectingIo io = new FaultInjectingIo();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        io.releaseForces();
        pool.shutdownNow();
    }

    private static List<byte[]> group(String name, int n) {
        List<byte[]> g = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            g.add(("{\"group\":\"" + name + "\",\"i\":" + i + ",\"pad\":\"" + "p".repeat(100) + "\"}")
                    .getBytes(StandardCharsets.UTF_8));
        }
        return g;
    }

    private static void until(BooleanSupplier condition) throws InterruptedException {
        Await.until("the condition", Duration.ofSeconds(30), condition);
    }

    private static List<byte[]> contentAfterReopen(Path dir) throws IOException {
        List<byte[]> out = new ArrayList<>();
        try (SegmentLog log = SegmentLog.open(dir)) {
            log.scan(0, log.size(), (i, p) -> out.add(p));
        }
        return out;
    }

    private static Throwable failureOf(CompletableFuture<Void> f) {
        try {
            f.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Groups g2 and g3 wait for a force that is running when the disk fills in the middle of g4. */
    private record Scenario(SegmentLog log, List<byte[]> expectedIfForced, List<byte[]> forcedBefore,
                            CompletableFuture<Void> w2, CompletableFuture<Void> w3, Future<Throwable> g4) {
    }

    private Scenario diskFillsWhileEarlierGroupsWait(Path dir) throws Exception {
        SegmentLog log = SegmentLog.open(dir, 1 << 20, false, io, 8);
        List<byte[]> g1 = group("g1", 3);
        log.append(g1);
        log.awaitDurable(log.size());
        io.holdForces();
        List<byte[]> g2 = group("g2", 2);
        List<byte[]> g3 = group("g3", 4);
        log.append(g2);
        log.append(g3);
        CompletableFuture<Void> w2 = log.whenDurable(5);
        CompletableFuture<Void> w3 = log.whenDurable(9);
        until(() -> io.heldForces.get() == 1);   // the flusher is forcing g2 and g3
        io.diskFullAfter(100);                    // g4 gets 100 of its bytes on disk, then ENOSPC
        Future<Throwable> g4 = pool.submit(() -> {
            try {
                log.append(group("g4", 5));
                return null;
            } catch (IOException e) {
                return e;
            }
        });
        until(() -> log.failure() != null);
        List<byte[]> all = new ArrayList<>(g1);
        all.addAll(g2);
        all.addAll(g3);
        return new Scenario(log, all, g1, w2, w3, g4);
    }

    @Test
    void diskFullInTheMiddleOfAGroupWhileEarlierGroupsWaitForTheirForce() throws Exception {
        Path dir = tmp.resolve("log");
        Scenario s = diskFillsWhileEarlierGroupsWait(dir);
        assertThat(s.w3().isDone()).as("nobody is answered before the partial group is dealt with").isFalse();
        io.releaseForces();   // the running force succeeds: g2 and g3 are on disk and acknowledged
        assertThat(s.g4().get(30, TimeUnit.SECONDS)).isNotNull().hasMessageContaining("No space left on device");
        assertThat(failureOf(s.w2())).isNull();
        assertThat(failureOf(s.w3())).isNull();
        assertThatThrownBy(() -> s.log().append(group("g5", 1))).isInstanceOf(IOException.class);
        s.log().close();
        assertThat(contentAfterReopen(dir)).containsExactlyElementsOf(s.expectedIfForced());
    }

    @Test
    void diskFullThenFailingForceRefusesTheWaitingGroupsAndTheyAreAbsentAfterReopen() throws Exception {
        Path dir = tmp.resolve("log");
        Scenario s = diskFillsWhileEarlierGroupsWait(dir);
        io.failForces(true);
        io.releaseForces();   // the running force fails: g2 and g3 may not be on disk
        assertThat(s.g4().get(30, TimeUnit.SECONDS)).isNotNull();
        assertThat(failureOf(s.w2())).isInstanceOf(IOException.class);
        assertThat(failureOf(s.w3())).isInstanceOf(IOException.class);
        assertThat(s.log().durableSize()).isEqualTo(3);
        s.log().close();
        assertThat(contentAfterReopen(dir)).containsExactlyElementsOf(s.forcedBefore());
    }

    @Test
    void fsyncFailureRefusesEveryWaiterAndTheirGroupsAreAbsentAfterReopen() throws Exception {
        Path dir = tmp.resolve("log");
        List<byte[]> g1 = group("g1", 2);
        try (SegmentLog log = SegmentLog.open(dir, 1 << 20, false, io, 8)) {
            log.append(g1);
            log.awaitDurable(2);
            log.append(group("g2", 3));
            log.append(group("g3", 1));
            io.failForces(true);
            CompletableFuture<Void> w2 = log.whenDurable(5);
            CompletableFuture<Void> w3 = log.whenDurable(6);
            assertThat(failureOf(w3)).isInstanceOf(IOException.class).hasMessageContaining("sync");
            assertThat(failureOf(w2)).isInstanceOf(IOException.class);
            assertThat(Files.size(dir.resolve("00000000000000000000.seg")))
                    .as("cut back to the last successful force before the waiters heard of it")
                    .isEqualTo(2L * (8 + g1.get(0).length) + FrameCodec.COMMIT_FRAME_BYTES);
        }
        assertThat(contentAfterReopen(dir)).containsExactlyElementsOf(g1);
    }

    @Test
    void whenTheCutFailsTooTheForcedSizeFileMarksTheRefusedGroupsAndRecoveryCutsThem() throws Exception {
        Path dir = tmp.resolve("log");
        List<byte[]> g1 = group("g1", 2);
        Path segment = dir.resolve("00000000000000000000.seg");
        long lengthWithRefusedGroups;
        try (SegmentLog log = SegmentLog.open(dir, 1 << 20, false, io, 8)) {
            log.append(g1);
            log.awaitDurable(2);
            log.append(group("g2", 3));
            io.failForces(true);
            io.failTruncates(true);
            assertThat(failureOf(log.whenDurable(5))).isInstanceOf(IOException.class);
            lengthWithRefusedGroups = Files.size(segment);
        }
        assertThat(ForcedSizeFile.read(dir)).hasValue(new ForcedSizeFile.State(2, true,
                ForcedSizeFile.read(dir).orElseThrow().generation()));
        try (SegmentLog log = SegmentLog.open(dir)) {
            assertThat(log.size()).isEqualTo(2);
            assertThat(log.recoveredTailBytes()).isEqualTo(lengthWithRefusedGroups - Files.size(segment));
            assertThat(log.acceptedLoss()).isEmpty();
        }
        assertThat(contentAfterReopen(dir)).containsExactlyElementsOf(g1);
    }

    @Test
    void tornWriteWithoutWaitersIsCutAtOnceAndTheEarlierGroupsStayDurable() throws Exception {
        Path dir = tmp.resolve("log");
        List<byte[]> g1 = group("g1", 2);
        List<byte[]> g2 = group("g2", 2);
        Path segment = dir.resolve("00000000000000000000.seg");
        try (SegmentLog log = SegmentLog.open(dir, 1 << 20, false, io, 8)) {
            log.append(g1);
            log.awaitDurable(2);
            log.append(g2);   // written, not yet forced
            long end = Files.size(segment);
            io.diskFullAfter(30);
            assertThatThrownBy(() -> log.append(group("g3", 2))).hasMessageContaining("No space left on device");
            assertThat(Files.size(segment)).as("the torn prefix is gone").isEqualTo(end);
            assertThat(log.durableSize()).as("the complete group before it was forced").isEqualTo(4);
            log.awaitDurable(4);
        }
        List<byte[]> expected = new ArrayList<>(g1);
        expected.addAll(g2);
        assertThat(contentAfterReopen(dir)).containsExactlyElementsOf(expected);
    }

    @Test
    void failingForcedSizeFileDoesNotFailTheLog() throws Exception {
        Path dir = tmp.resolve("log");
        try (SegmentLog log = SegmentLog.open(dir, 1 << 20, false, io, 8)) {
            io.failSideFileWrites(true);
            log.append(group("g1", 2));
            log.awaitDurable(2);
            assertThat(log.failure()).isNull();
            io.failSideFileWrites(false);
        }
        assertThat(contentAfterReopen(dir)).hasSize(2);
    }
}
