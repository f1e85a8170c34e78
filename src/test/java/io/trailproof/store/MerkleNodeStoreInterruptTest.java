package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Reference;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An interrupt of a thread inside a mutator (a batch worker cancelled while it
 * appends tree nodes) neither fails that mutator nor breaks the store for other threads, and the
 * interrupted thread keeps its interrupt status.
 */
class MerkleNodeStoreInterruptTest {
    @TempDir
    Path tmp;

    @Test
    void anAppenderInterruptedAgainAndAgainNeitherFailsNorBreaksTheStore() throws Exception {
        int interrupted = 12_000;
        int total = 16_000;
        List<byte[]> leaves = Reference.leafHashes(Reference.randomLeaves(new Random(1010), total));
        InMemorySubtreeHashes expected = InMemorySubtreeHashes.ofLeafHashes(leaves);
        Path dir = tmp.resolve("merkle");
        // Small chunks make nearly every append write to a file; new levels make force sync the directory.
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0, 2, 5)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicInteger interruptsSeen = new AtomicInteger();
            Thread appender = new Thread(() -> {
                try {
                    for (int i = 0; i < interrupted; i++) {
                        store.append(leaves.get(i));
                        if (i % 1000 == 0 || Integer.bitCount(i) == 1) {
                            store.force();
                        }
                        if (Thread.interrupted()) {
                            interruptsSeen.incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            }, "interrupted-appender");
            appender.start();
            while (appender.isAlive()) {
                appender.interrupt();
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            }
            appender.join();
            assertThat(failure.get()).as("failure of the interrupted appender").isNull();
            assertThat(interruptsSeen.get()).as("interrupts left for the appender to see").isPositive();

            // Another thread carries on with the same store.
            Thread next = new Thread(() -> {
                try {
                    for (int i = interrupted; i < total; i++) {
                        store.append(leaves.get(i));
                    }
                    store.force();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            next.start();
            next.join();
            assertThat(failure.get()).as("failure of the next appender").isNull();
            assertSameRoots(store, expected, total);
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, total)) {
            assertThat(store.repairs()).isEmpty();
            assertSameRoots(store, expected, total);
        }
    }

    @Test
    void aThreadInterruptedBeforeForcingStillForcesAndKeepsItsStatus() throws IOException {
        List<byte[]> leaves = Reference.leafHashes(Reference.randomLeaves(new Random(1011), 100));
        Path dir = tmp.resolve("merkle");
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 0, 4, 3)) {
            Thread.currentThread().interrupt();
            try {
                for (byte[] leaf : leaves) {
                    store.append(leaf); // creates level files: the force below syncs the directory
                }
                store.force();
                assertThat(Thread.currentThread().isInterrupted()).as("interrupt status kept").isTrue();
            } finally {
                Thread.interrupted();
            }
        }
        try (MerkleNodeStore store = MerkleNodeStore.open(dir, 100)) {
            assertSameRoots(store, InMemorySubtreeHashes.ofLeafHashes(leaves), 100);
        }
    }

    private static void assertSameRoots(MerkleNodeStore store, InMemorySubtreeHashes expected, int n) {
        assertThat(store.size()).isEqualTo(n);
        for (int s = n; s >= 0; s -= s > n - 64 ? 1 : 61) {
            assertThat(store.root(s)).as("root(%d)", s).isEqualTo(expected.root(s));
        }
    }
}
