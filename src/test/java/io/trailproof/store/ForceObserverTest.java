package io.trailproof.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The group-commit observer (metrics) sees every payload made durable once, and cannot fail the log. */
class ForceObserverTest {

    @TempDir
    Path dir;

    @Test
    void groupsAddUpToThePayloadsMadeDurable() throws Exception {
        AtomicLong forces = new AtomicLong();
        AtomicLong payloads = new AtomicLong();
        try (SegmentLog log = SegmentLog.open(dir.resolve("log"))) {
            log.observeForces((nanos, n) -> {
                assertThat(nanos).isNotNegative();
                forces.incrementAndGet();
                payloads.addAndGet(n);
            });
            for (int g = 0; g < 3; g++) {
                long first = log.append(List.of(bytes("a" + g), bytes("b" + g)));
                log.awaitDurable(first + 2);
            }
            // the observer runs before the waiters are answered: every force is seen once its writes are durable
            assertThat(payloads.get()).isEqualTo(6);
            assertThat(forces.get()).isBetween(1L, 3L);
        }
    }

    @Test
    void aThrowingObserverDoesNotFailTheLog() throws Exception {
        try (SegmentLog log = SegmentLog.open(dir.resolve("log"))) {
            log.observeForces((nanos, n) -> {
                throw new IllegalStateException("a broken metric");
            });
            for (int g = 0; g < 3; g++) {
                long first = log.append(List.of(bytes("x" + g)));
                log.awaitDurable(first + 1);
            }
            assertThat(log.failure()).isNull();
            assertThat(log.durableSize()).isEqualTo(3);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
