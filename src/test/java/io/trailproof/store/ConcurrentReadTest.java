package io.trailproof.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reads, scans and awaits run while one thread appends and the log rolls through many segments. */
class ConcurrentReadTest {
    @TempDir
    Path tmp;

    /** Payload derived from its index, so a reader can check what it got without shared state. */
    static byte[] payloadFor(long index) {
        int len = 9 + (int) (index % 200);
        ByteBuffer b = ByteBuffer.allocate(len);
        b.put((byte) '{').putLong(index);
        while (b.hasRemaining()) {
            b.put((byte) (index * 31 + b.position()));
        }
        return b.array();
    }

    @Test
    void readersSeeCompleteDataWhileAppendsRoll() throws Exception {
        int total = 10_000;
        try (SegmentLog log = SegmentLog.open(tmp.resolve("log"), 16 * 1024)) {
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> readers = new ArrayList<>();
            for (int r = 0; r < 3; r++) {
                long seed = r;
                readers.add(pool.submit(() -> {
                    Random rnd = new Random(seed);
                    long checks = 0;
                    while (!done.get() || checks == 0) {
                        long n = log.size();
                        if (n == 0) {
                            continue;
                        }
                        long i = rnd.nextInt((int) n);
                        assertThat(log.read(i)).isEqualTo(payloadFor(i));
                        long from = rnd.nextInt((int) n);
                        long to = Math.min(n, from + rnd.nextInt(500));
                        long[] expect = {from};
                        log.scan(from, to, (idx, p) -> {
                            assertThat(idx).isEqualTo(expect[0]++);
                            assertThat(p).isEqualTo(payloadFor(idx));
                        });
                        assertThat(expect[0]).isEqualTo(to);
                        if (rnd.nextInt(50) == 0) {
                            log.awaitDurable(n);
                        }
                        checks++;
                    }
                    return null;
                }));
            }
            Random rnd = new Random(99);
            long next = 0;
            while (next < total) {
                int g = 1 + rnd.nextInt(8);
                List<byte[]> group = new ArrayList<>();
                for (int k = 0; k < g; k++) {
                    group.add(payloadFor(next + k));
                }
                assertThat(log.append(group)).isEqualTo(next);
                next += g;
            }
            done.set(true);
            for (Future<?> f : readers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
    }
}
