package io.trailproof.otlp;

import java.time.Duration;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.proto.trace.v1.Span;
import io.trailproof.testing.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Span dedupe survives kill -9: exports are sent from 4 clients, the server process is killed while
 * they are in flight, restarted, and every export is sent again (as exporters retry). Every span is
 * then stored exactly once: those acknowledged before the kill (their marks were committed with
 * them), those stored but not acknowledged, and those lost with the kill alike.
 */
class OtlpCrashIT {

    static final int EXPORTS = 40;
    static final int SPANS = 20;
    static final int AGENTS = 4;

    @TempDir
    Path dir;

    static byte[] export(int e) {
        List<Span> spans = new ArrayList<>();
        for (int i = 0; i < SPANS; i++) {
            int n = e * SPANS + i;
            spans.add(Spans.span("crash-" + (e % AGENTS), 5000 + e, n + 1, n, i % 2 == 0 ? "chat" : "execute_tool").build());
        }
        return Spans.request(spans).toByteArray();
    }

    @Test
    void everySpanIsStoredOnceWhenExportsAreRetriedAfterAKill() throws Exception {
        Path data = dir.resolve("data");
        long t0 = System.nanoTime();
        AtomicInteger acknowledged = new AtomicInteger();
        try (ServerProcess server = ServerProcess.start(data)) {
            OtlpClient client = new OtlpClient(server.port(), null);
            AtomicInteger next = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> sending = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                sending.add(pool.submit(() -> {
                    int e;
                    while ((e = next.getAndIncrement()) < EXPORTS) {
                        try {
                            if (client.protobuf(export(e)).status() == 200) {
                                acknowledged.incrementAndGet();
                            }
                        } catch (IOException killed) {
                            return null;
                        }
                    }
                    return null;
                }));
            }
            Await.until("a quarter of the exports acknowledged", Duration.ofMinutes(5),
                    () -> acknowledged.get() >= EXPORTS / 4);
            System.out.printf("OtlpCrashIT: killing after %.1f s%n", (System.nanoTime() - t0) / 1e9);
            server.kill();
            for (Future<?> f : sending) {
                f.get();
            }
            pool.shutdown();
        }
        assertThat(acknowledged.get()).isBetween(EXPORTS / 4, EXPORTS);
        System.out.printf("OtlpCrashIT: senders done after %.1f s%n", (System.nanoTime() - t0) / 1e9);
        try (ServerProcess server = ServerProcess.start(data)) {
            System.out.printf("OtlpCrashIT: restarted after %.1f s%n", (System.nanoTime() - t0) / 1e9);
            OtlpClient client = new OtlpClient(server.port(), null);
            for (int e = 0; e < EXPORTS; e++) {
                assertThat(client.protobuf(export(e)).status()).isEqualTo(200);
            }
            JsonNode stats = server.api().get("/v1/stats").json();
            assertThat(stats.get("total_events").asLong()).isEqualTo((long) EXPORTS * SPANS);
            for (int a = 0; a < AGENTS; a++) {
                JsonNode v = server.api().get("/v1/verify?agent_id=crash-" + a).json();
                assertThat(v.get("valid").asBoolean()).as(v.toString()).isTrue();
                assertThat(v.get("events_verified").asLong()).isEqualTo((long) EXPORTS / AGENTS * SPANS);
            }
            System.out.println("OtlpCrashIT: " + acknowledged.get() + " of " + EXPORTS + " exports acknowledged before the kill");
        }
    }
}
