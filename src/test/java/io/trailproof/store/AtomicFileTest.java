package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
    @TempDir
    Path tmp;

    @Test
    void createsAndReplacesWithoutLeavingTemporaryFiles() throws Exception {
        Path target = tmp.resolve("sub/checkpoint.json");
        AtomicFile.write(target, "old".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("old");
        AtomicFile.write(target, "new content".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("new content");
        AtomicFile.write(target, new byte[0]);
        assertThat(Files.size(target)).isZero();
        try (var files = Files.list(target.getParent())) {
            assertThat(files).containsExactly(target);
        }
        AtomicFile.forceDirectory(tmp);
    }

    @Test
    void anInterruptedThreadStillForcesADirectoryAndKeepsItsStatus() throws Exception {
        Thread.currentThread().interrupt();
        try {
            AtomicFile.forceDirectory(tmp);
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt status kept").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aThreadInterruptedAgainAndAgainNeverFailsToForceADirectory() throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger interruptsSeen = new AtomicInteger();
        Thread syncer = new Thread(() -> {
            try {
                for (int i = 0; i < 2_000; i++) {
                    AtomicFile.forceDirectory(tmp);
                    if (Thread.interrupted()) {
                        interruptsSeen.incrementAndGet();
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "interrupted-syncer");
        syncer.start();
        while (syncer.isAlive()) {
            syncer.interrupt();
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
        }
        syncer.join();
        assertThat(failure.get()).as("failure of the interrupted thread").isNull();
        assertThat(interruptsSeen.get()).as("interrupts left for the thread to see").isPositive();
    }
}
