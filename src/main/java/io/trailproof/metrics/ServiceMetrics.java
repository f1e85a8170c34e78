package io.trailproof.metrics;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.util.function.DoubleSupplier;

/**
 * Every metric of the service (src/site/operations.md) and their Prometheus text form. The only class that
 * knows the Prometheus client: the layers below report through small observers and suppliers that
 * the composition root wires here, so that they stay free of it.
 *
 * <p>Cost: state that already exists (tree size, index lag, subscribers) is read at scrape time
 * through callbacks and costs ingestion nothing; what is recorded is recorded once per request and
 * once per group commit, never per event, into the client's lock-free counters and histograms.
 *
 * <p>Names follow the Prometheus conventions: the {@code trailproof_} prefix (JVM metrics keep the
 * client's standard {@code jvm_} names), {@code _total} for counters, base units in the name
 * ({@code _seconds}, {@code _bytes}). Label values are bounded: an endpoint is its route template,
 * never a raw path.
 */
public final class ServiceMetrics {

    /** The {@code Content-Type} of {@link #write}. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private static final double[] REQUEST_SECONDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
        1, 2.5, 5, 10, 30};
    private static final double[] FORCE_SECONDS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
        0.1, 0.25, 0.5, 1, 2.5};
    private static final double[] GROUP_EVENTS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final Counter requests;
    private final Histogram requestSeconds;
    private final Counter responseBytes;
    private final Histogram forceSeconds;
    private final Histogram groupEvents;
    private final Counter replays;
    private final Counter timestamps;
    private final Counter checkpoints;
    private final Counter witnesses;
    /** Null until the first re-verification finished. */
    private volatile Verification lastVerification;

    public ServiceMetrics() {
        requests = Counter.builder().name("trailproof_http_requests_total")
                .help("HTTP requests answered, by route template, method and status")
                .labelNames("endpoint", "method", "status").withoutExemplars().register(registry);
        requestSeconds = Histogram.builder().name("trailproof_http_request_duration_seconds")
                .help("Time from a request's arrival to the end of its answer, by route template and method")
                .labelNames("endpoint", "method").classicOnly().classicUpperBounds(REQUEST_SECONDS)
                .withoutExemplars().register(registry);
        responseBytes = Counter.builder().name("trailproof_http_response_bytes_total")
                .help("Bytes of answer bodies sent, by route template")
                .labelNames("endpoint").withoutExemplars().register(registry);
        forceSeconds = Histogram.builder().name("trailproof_log_force_duration_seconds")
                .help("Duration of each group-commit force (fsync) of the event log")
                .classicOnly().classicUpperBounds(FORCE_SECONDS).withoutExemplars().register(registry);
        groupEvents = Histogram.builder().name("trailproof_log_force_group_events")
                .help("Events made durable by each group-commit force (the group size)")
                .classicOnly().classicUpperBounds(GROUP_EVENTS).withoutExemplars().register(registry);
        replays = Counter.builder().name("trailproof_idempotent_replays_total")
                .help("Requests answered with the recorded answer of an earlier request with the same Idempotency-Key")
                .withoutExemplars().register(registry);
        timestamps = Counter.builder().name("trailproof_timestamps_total")
                .help("RFC 3161 timestamp attempts by outcome (success, failure: TSA failed or record not stored)")
                .labelNames("outcome").withoutExemplars().register(registry);
        checkpoints = Counter.builder().name("trailproof_checkpoints_total")
                .help("Signed checkpoint attempts by outcome (success: a new checkpoint signed and stored)")
                .labelNames("outcome").withoutExemplars().register(registry);
        witnesses = Counter.builder().name("trailproof_witness_requests_total")
                .help("Cosignature requests to witnesses by witness and outcome")
                .labelNames("witness", "outcome").withoutExemplars().register(registry);
        GaugeWithCallback.builder().name("trailproof_verification_last_ok")
                .help("1 when the last re-verification of every chain found all valid, 0 when not; absent before the first")
                .callback(cb -> {
                    Verification v = lastVerification;
                    if (v != null) {
                        cb.call(v.invalid() == 0 ? 1 : 0);
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("trailproof_verification_last_invalid_chains")
                .help("Chains the last re-verification found invalid; absent before the first")
                .callback(cb -> {
                    Verification v = lastVerification;
                    if (v != null) {
                        cb.call(v.invalid());
                    }
                }).register(registry);
        GaugeWithCallback.builder().name("trailproof_verification_last_timestamp_seconds")
                .help("Unix time at which the last re-verification of every chain finished; absent before the first")
                .callback(cb -> {
                    Verification v = lastVerification;
                    if (v != null) {
                        cb.call(v.epochMillis() / 1000.0);
                    }
                }).register(registry);
        for (String outcome : new String[] {"success", "failure"}) {
            timestamps.labelValues(outcome);
            checkpoints.labelValues(outcome);
        }
        JvmMemoryMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
    }

    // ------------------------------------------------------------------ read at scrape time

    /** A gauge read at scrape time; {@code name} must carry the {@code trailproof_} prefix. */
    public void gauge(String name, String help, DoubleSupplier value) {
        GaugeWithCallback.builder().name(checked(name)).help(help)
                .callback(cb -> cb.call(value.getAsDouble())).register(registry);
    }

    /** A counter read at scrape time (the supplier never decreases while the process runs). */
    public void counter(String name, String help, DoubleSupplier value) {
        if (!name.endsWith("_total")) {
            throw new IllegalArgumentException("a counter's name ends in _total: " + name);
        }
        CounterWithCallback.builder().name(checked(name)).help(help)
                .callback(cb -> cb.call(value.getAsDouble())).register(registry);
    }

    private static String checked(String name) {
        if (!name.startsWith("trailproof_")) {
            throw new IllegalArgumentException("a service metric's name starts with trailproof_: " + name);
        }
        return name;
    }

    // ------------------------------------------------------------------ recorded

    /** One answered request; {@code endpoint} is a route template or a fixed word, never a raw path. */
    public void request(String endpoint, String method, int status, long nanos, long bytesSent) {
        requests.labelValues(endpoint, method, Integer.toString(status)).inc();
        requestSeconds.labelValues(endpoint, method).observe(nanos / 1e9);
        if (bytesSent > 0) {
            responseBytes.labelValues(endpoint).inc(bytesSent);
        }
    }

    /** A group-commit force of the log (see {@code store.ForceObserver}). */
    public void logForced(long nanos, long events) {
        forceSeconds.observe(nanos / 1e9);
        groupEvents.observe(events);
    }

    public void idempotentReplay() {
        replays.inc();
    }

    public void timestamp(boolean ok) {
        timestamps.labelValues(ok ? "success" : "failure").inc();
    }

    public void checkpoint(boolean ok) {
        checkpoints.labelValues(ok ? "success" : "failure").inc();
    }

    /** Registers a witness's two outcomes at zero, so that rates exist before the first request. */
    public void witnessConfigured(String witness) {
        witnesses.labelValues(witness, "success");
        witnesses.labelValues(witness, "failure");
    }

    public void witness(String witness, boolean ok) {
        witnesses.labelValues(witness, ok ? "success" : "failure").inc();
    }

    /** The re-verification of every chain finished at {@code epochMillis} with {@code invalid} chains invalid. */
    public void verified(long invalid, long epochMillis) {
        lastVerification = new Verification(invalid, epochMillis);
    }

    private record Verification(long invalid, long epochMillis) {
    }

    // ------------------------------------------------------------------ exposition

    /** Writes every metric in the Prometheus text format 0.0.4. */
    public void write(OutputStream out) throws IOException {
        writer.write(out, registry.scrape());
    }
}
