package io.trailproof.bench;

import io.trailproof.metrics.ServiceMetrics;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * What recording metrics costs on the ingest path, per call. Ingestion records once per
 * request ({@link ServiceMetrics#request}) and once per group-commit force
 * ({@link ServiceMetrics#logForced}), never per event, so an event's share is these costs divided by
 * the events of its request and of its group; the end-to-end comparison of two servers
 * ({@code bench/run-metrics}) cannot resolve a difference that small. Run:
 * {@code java -jar bench/target/trailproof-bench.jar MetricsRecordingBenchmarks}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class MetricsRecordingBenchmarks {

    private ServiceMetrics metrics;
    private long tick;

    @Setup(Level.Trial)
    public void setUp() {
        metrics = new ServiceMetrics();
    }

    /** One answered batch request: the counter by (endpoint, method, status), the latency histogram, the bytes. */
    @Benchmark
    public void recordOneRequest() {
        tick++;
        metrics.request("/v1/batch", "POST", 201, 2_000_000L + (tick & 1023) * 1000, 400_000L);
    }

    /** One group-commit force: its latency and its size. */
    @Benchmark
    public void recordOneForce() {
        tick++;
        metrics.logForced(500_000L + (tick & 1023) * 100, 1000 + (tick & 255));
    }
}
