package io.trailproof.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The scenarios an outside engineer runs: each endpoint under {@code wrk} at 1 and 16
 * connections, closed loop, after a warm-up, beside the project's own client doing the same in the
 * same run; and batch ingest with wrk posting a pre-built batch from 8 connections. The latency of
 * a closed loop at 16 connections includes queueing behind the other 15: on 2 cores that is most
 * of it, and it is what such a client sees.
 */
final class NeutralScenarios {

    static final int WARM_UP_SECONDS = 2;
    static final int MEASURE_SECONDS = 8;

    private final LoadGenerator g;
    private final Wrk wrk;
    private final Path work;

    NeutralScenarios(LoadGenerator g, Wrk wrk, Path work) {
        this.g = g;
        this.wrk = wrk;
        this.work = work;
    }

    /**
     * wrk posting the same batch of 1,000 events (about 500 bytes each) from 8 connections for
     * {@code seconds}. Returns {durable events/s, searchable events/s, server CPU µs per event}.
     */
    double[] batchIngest(long serverPid, int seconds, long offset) throws Exception {
        StringBuilder body = new StringBuilder(1000 * 520).append('[');
        for (int i = 0; i < 1000; i++) {
            long n = offset + i;
            body.append(i == 0 ? "" : ",").append(SampleEvents.event(n, LoadGenerator.agentFor(n)));
        }
        Path file = work.resolve("batch-1000.json");
        Files.writeString(file, body.append(']'), StandardCharsets.UTF_8);
        long before = g.stats().get("total_events").asLong();
        long t0 = System.nanoTime();
        long[] cpu0 = ServerProbe.cpuNanos(serverPid);
        Wrk.Result r = wrk.run(url("/v1/batch"), 8, seconds, Map.of("WRK_BODY_FILE", file.toString()));
        long searchable = g.awaitSearchable();
        long[] cpu1 = ServerProbe.cpuNanos(serverPid);
        long stored = g.stats().get("total_events").asLong() - before;
        double durable = r.requests() * 1000.0 / r.seconds();
        System.err.printf(Locale.ROOT, "wrk batch ingest: %,d events stored, %,.0f/s durable%n", stored, durable);
        return new double[] {durable, stored / ((searchable - t0) / 1e9), (cpu1[0] - cpu0[0]) / 1e3 / stored};
    }

    /**
     * Each read endpoint and the single-event POST: the own client, then wrk, at 1 and at 16
     * connections; every figure into the latency table.
     */
    void latencies(long size, List<String> sampleIds) throws Exception {
        String at = " @" + LoadGenerator.human(size);
        Random r = new Random(11);
        List<String> proofs = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            proofs.add("/v1/merkle/proof?event_id=" + sampleIds.get(r.nextInt(sampleIds.size())));
        }
        List<String> searches = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            searches.add("/v1/search?q=" + LoadGenerator.enc("\"region " + r.nextInt((int) size) + "\""));
        }
        try (FloorServer floor = new FloorServer(); UndertowHello hello = new UndertowHello()) {
            endpoint("GET /v1/merkle/root" + at, List.of("/v1/merkle/root"), null, "<= 1", 1.0, Map.of(
                    "wrk, floor", "http://127.0.0.1:" + floor.port() + "/v1/merkle/root",
                    "wrk, hello", "http://127.0.0.1:" + hello.port() + "/v1/merkle/root"));
        }
        endpoint("GET /v1/merkle/proof" + at, proofs, null, "<= 2", 2.0);
        endpoint("GET /health" + at, List.of("/health"), null, "", 0);
        endpoint("GET /v1/search selective" + at, searches, null, "", 0);
        // The console's search page: the page with facets and a histogram over all matches,
        // for a selective query and for one that every event matches (the console's widest view).
        String summaries = "&facets=agent_id,action_type,action_status,source,label.env&histogram=PT1M";
        endpoint("GET /v1/search selective + facets + histogram" + at,
                searches.stream().map(q -> q + summaries).toList(), null, "", 0);
        endpoint("GET /v1/search every event + facets + histogram" + at,
                List.of("/v1/search?q=search_database&limit=50" + summaries), null, "", 0);
        endpoint("POST /v1/events (one event)" + at, List.of("/v1/events"),
                SampleEvents.event(size, "neutral-single"), "", 0);
    }

    private void endpoint(String name, List<String> paths, String postBody, String target, double limit) throws Exception {
        endpoint(name, paths, postBody, target, limit, Map.of());
    }

    /**
     * As above; each of {@code baselines} (client label to URL: {@link FloorServer}, {@link UndertowHello})
     * is measured by wrk right after the server at each connection count, so that all rows of that
     * count come from the same minute of the machine.
     */
    private void endpoint(String name, List<String> paths, String postBody, String target, double limit,
                          Map<String, String> baselines) throws Exception {
        Path pathsFile = work.resolve("paths.txt");
        Files.write(pathsFile, paths, StandardCharsets.UTF_8);
        Path bodyFile = work.resolve("body.json");
        if (postBody != null) {
            Files.writeString(bodyFile, postBody, StandardCharsets.UTF_8);
        }
        Map<String, String> env = postBody != null ? Map.of("WRK_BODY_FILE", bodyFile.toString())
                : paths.size() > 1 ? Map.of("WRK_PATHS_FILE", pathsFile.toString()) : Map.of();
        String url = url(paths.get(0));
        for (int connections : new int[] {1, 16}) {
            own(paths, postBody, connections, WARM_UP_SECONDS);
            double[] o = own(paths, postBody, connections, MEASURE_SECONDS);
            g.table().addLatency(name, "own client", connections, o[0], o[1], o[2], o[3], o[4], target,
                    limit == 0 || o[3] <= limit);
            wrk.run(url, connections, WARM_UP_SECONDS, env);
            Wrk.Result w = wrk.run(url, connections, MEASURE_SECONDS, env);
            g.table().addLatency(name, "wrk", connections, w.rate(), w.p50(), w.p90(), w.p99(), w.max(), target,
                    limit == 0 || w.p99() <= limit);
            for (String client : new TreeSet<>(baselines.keySet())) {
                wrk.run(baselines.get(client), connections, WARM_UP_SECONDS, Map.of());
                Wrk.Result f = wrk.run(baselines.get(client), connections, MEASURE_SECONDS, Map.of());
                g.table().addLatency(name, client, connections, f.rate(), f.p50(), f.p90(), f.p99(), f.max(),
                        "baseline", true);
            }
        }
    }

    /** The own client in a closed loop: {req/s, p50, p90, p99, max} (ms). */
    private double[] own(List<String> paths, String postBody, int connections, int seconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Future<long[]>> fs = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int client = c;
            fs.add(pool.submit(() -> {
                long[] lat = new long[1 << 16];
                int n = 0;
                int next = client * 7919;
                while (System.nanoTime() < end) {
                    String path = paths.get(next++ % paths.size());
                    long s = System.nanoTime();
                    PlainHttp.Response resp = postBody != null ? g.post(path, postBody) : g.get(path);
                    long d = System.nanoTime() - s;
                    if (resp.status() / 100 != 2) {
                        throw new IllegalStateException(path + " answered " + resp.status() + ": " + resp.text());
                    }
                    if (n == lat.length) {
                        lat = Arrays.copyOf(lat, n * 2);
                    }
                    lat[n++] = d;
                }
                g.closeConnection();
                return Arrays.copyOf(lat, n);
            }));
        }
        List<long[]> all = new ArrayList<>();
        for (Future<long[]> f : fs) {
            all.add(f.get());
        }
        pool.shutdown();
        long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new double[] {merged.length / (double) seconds, LoadGenerator.pct(merged, 0.50),
                LoadGenerator.pct(merged, 0.90), LoadGenerator.pct(merged, 0.99), merged[merged.length - 1] / 1e6};
    }

    private String url(String path) {
        return "http://127.0.0.1:" + g.port + path;
    }

    static Path workDir() throws IOException {
        return Files.createTempDirectory("trailproof-bench-wrk");
    }
}
