package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCommitTest {
    @TempDir
    Path tmp;

    @Test
    void concurrentAppendersShareForces() throws Exception {
        int threads = 32;
        int perThread = 100;
        Path dir = tmp.resolve("log");
        ReentrantLock sequencer = new ReentrantLock();
        long forces;
        try (SegmentLog log = SegmentLog.open(dir, 64 * 1024)) {
            long forcesAtStart = log.forceCount();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        byte[] p = ("{\"t\":" + thread + ",\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
                        long index;
                        sequencer.lock();
                        try {
                            index = log.append(List.of(p));
                        } finally {
                            sequencer.unlock();
                        }
                        log.awaitDurable(index + 1);
                        assertThat(log.durableSize()).isGreaterThan(index);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            forces = log.forceCount() - forcesAtStart;
            assertThat(log.size()).isEqualTo((long) threads * perThread);
        }
        int appends = threads * perThread;
        assertThat(forces).as("forces for %d appends", appends).isLessThan(appends / 4);

        try (SegmentLog log = SegmentLog.open(dir, 64 * 1024)) {
            assertThat(log.size()).isEqualTo(appends);
            int[] next = new int[threads];
            log.scan(0, log.size(), (index, p) -> {
                String s = new String(p, StandardCharsets.UTF_8);
                int t = Integer.parseInt(s.substring(s.indexOf("\"t\":") + 4, s.indexOf(',')));
                int i = Integer.parseInt(s.substring(s.indexOf("\"i\":") + 4, s.indexOf('}')));
                assertThat(i).as("thread %d order", t).isEqualTo(next[t]);
                next[t]++;
            });
            for (int t = 0; t < threads; t++) {
                assertThat(next[t]).isEqualTo(perThread);
            }
        }
    }
}
