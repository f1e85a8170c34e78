package io.trailproof.bench;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Calls at a fixed rate, whatever the answers' times (an open-loop load, as {@code wrk2} makes): each
 * of {@code connections} persistent connections has its own schedule of calls, one every
 * {@code connections / rate} seconds, the connections' schedules staggered evenly. A call's latency
 * is counted from the time it was scheduled to start, not from the time it was sent: a slow answer
 * delays the calls behind it on its connection, and that delay is part of their latency
 * (the coordinated-omission correction). A closed loop (wrk) instead sends fewer calls while the
 * server is slow, so its slow moments are under-sampled and its tail says little.
 */
final class FixedRateCalls {

    /**
     * What one run measured.
     *
     * @param latencies nanoseconds from each call's scheduled start to the end of its answer, sorted
     * @param serviceTimes nanoseconds from each call's actual send to the end of its answer, sorted
     * @param late calls sent more than 1 ms after their scheduled start (the connection was still busy,
     *        or this client's thread woke late)
     */
    record Result(long[] latencies, long[] serviceTimes, long errors, long late, double seconds) {

        double rate() {
            return latencies.length / seconds;
        }

        double p(long[] sorted, double percentile) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(sorted.length * percentile / 100.0) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
        }

        /** Milliseconds at {@code percentile} of the corrected latencies. */
        double ms(double percentile) {
            return p(latencies, percentile);
        }

        double maxMs() {
            return latencies.length == 0 ? Double.NaN : latencies[latencies.length - 1] / 1e6;
        }
    }

    private FixedRateCalls() {
    }

    /**
     * POSTs {@code body} to {@code path} on 127.0.0.1:{@code port} at {@code rate} calls a second in
     * all, over {@code connections} connections, for {@code duration}. Every answer must be a 200.
     */
    static Result run(int port, String path, byte[] body, int connections, double rate, Duration duration)
            throws Exception {
        long interval = Math.round(connections * 1e9 / rate);
        long stagger = Math.round(1e9 / rate);
        long calls = Math.max(1, duration.toNanos() / interval);
        long start = System.nanoTime() + 50_000_000L; // every connection open before the first call
        List<long[]> latencies = new ArrayList<>();
        List<long[]> services = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        AtomicLong late = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            long[] lat = new long[(int) calls];
            long[] svc = new long[(int) calls];
            latencies.add(lat);
            services.add(svc);
            long first = start + c * stagger;
            threads.add(Thread.ofPlatform().name("fixed-rate-" + c).start(() -> {
                try (PlainHttp http = new PlainHttp(port)) {
                    for (int k = 0; k < calls; k++) {
                        long scheduled = first + k * interval;
                        for (long wait = scheduled - System.nanoTime(); wait > 0; wait = scheduled - System.nanoTime()) {
                            LockSupport.parkNanos(wait);
                        }
                        long sent = System.nanoTime();
                        if (sent - scheduled > 1_000_000L) {
                            late.incrementAndGet();
                        }
                        int status = http.postDroppingAnswer(path, body, "");
                        long done = System.nanoTime();
                        if (status != 200) {
                            errors.incrementAndGet();
                        }
                        lat[k] = done - scheduled;
                        svc[k] = done - sent;
                    }
                } catch (IOException e) {
                    errors.incrementAndGet();
                    throw new IllegalStateException("a fixed-rate connection failed", e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result(sorted(latencies), sorted(services), errors.get(), late.get(), seconds);
    }

    private static long[] sorted(List<long[]> parts) {
        long[] all = parts.stream().flatMapToLong(Arrays::stream).toArray();
        Arrays.sort(all);
        return all;
    }
}
