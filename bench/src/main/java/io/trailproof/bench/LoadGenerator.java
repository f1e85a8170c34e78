package io.trailproof.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Drives the real server over loopback and prints one table: each figure beside its target and,
 * where one applies, the physical-limit baseline measured in the same run on the same machine.
 *
 * <p>Usage: {@code LoadGenerator [DIST] [--events N] [--jmh results.json]} and the flags of bench/README.md.
 */
public final class LoadGenerator {

    static final ObjectMapper JSON = new ObjectMapper();

    private final Path dist;
    private final long totalEvents;
    private final LoadClient client = new LoadClient(() -> this.port, () -> this.jdkClient);
    private final Table table = new Table();
    private final List<String> sampleIds = new ArrayList<>();
    int port;

    /** Use the JDK's HttpClient instead of {@link PlainHttp}, to see what the client costs. */
    boolean jdkClient;

    /** Only the two ingest scenarios, on {@code --events} events at most: a quick A/B of an ingest change. */
    boolean ingestOnly;

    /** Only batch ingest (for profiling it alone). */
    boolean batchOnly;

    /** Batch ingest and the latencies, each with the own client and with wrk: no single events, export or restarts. */
    boolean neutralOnly;

    /** Where {@code trailproof.lua} is; the wrk rows are skipped when wrk is not installed. */
    Path wrkDir = Path.of("bench/wrk");

    LoadGenerator(Path dist, long totalEvents) {
        this.dist = dist;
        this.totalEvents = totalEvents;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, List.of("--events", "--jmh", "--wrk-dir"),
                Set.of("--jdk-client", "--ingest-only", "--batch-only", "--neutral-only"));
        Path dist = a.dist();
        long events = a.longOption("--events", 1_000_000);
        Path jmh = a.pathOption("--jmh", null);
        boolean jdkClient = a.flag("--jdk-client");
        boolean ingestOnly = a.flag("--ingest-only");
        boolean batchOnly = a.flag("--batch-only");
        boolean neutralOnly = a.flag("--neutral-only");
        Path wrkDir = a.pathOption("--wrk-dir", Path.of("bench/wrk"));
        LoadGenerator g = new LoadGenerator(dist, events);
        g.jdkClient = jdkClient;
        g.ingestOnly = ingestOnly;
        g.batchOnly = batchOnly;
        g.neutralOnly = neutralOnly;
        g.wrkDir = wrkDir;
        g.run();
        if (jmh != null && Files.exists(jmh)) {
            g.table.addJmh(JSON.readTree(jmh.toFile()));
        }
        System.out.println();
        System.out.println(g.table.render(machine()));
        System.exit(0); // the HTTP client's pool threads would keep the JVM alive
    }

    static String machine() {
        return Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch") + ", client JVM " + Runtime.version();
    }

    void run() throws Exception {
        Path data = Files.createTempDirectory("trailproof-bench-data");
        String heap = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        byte[] stored = Baselines.storedSizedPayload();
        double fileBaseline = Baselines.fileAppendBaseline(data.getParent(), stored, 200_000);
        double shaBaseline = Baselines.sha256Baseline(stored, 1_000_000);
        ServerUnderTest server = ServerUnderTest.start(dist, data, heap);
        port = server.port;
        Wrk wrk = Wrk.find(wrkDir);
        Path wrkWork = NeutralScenarios.workDir();
        NeutralScenarios neutral = wrk == null ? null : new NeutralScenarios(this, wrk, wrkWork);
        if (wrk == null) {
            System.err.println("wrk not found (Debian: apt-get install wrk): the neutral-client rows are skipped");
        }
        try {
            // Warm-up: the JIT compiles the hot paths of the server (Undertow, Jackson, Lucene) during
            // the first tens of thousands of events, several CPU-seconds on 2 cores; a service runs
            // for weeks, so the figures below are taken after it, and the warm-up rate is shown apart.
            long warmUp = Math.min(totalEvents / 10, 100_000);
            long w0 = System.nanoTime();
            batchIngest(8, 1000, warmUp, 0);
            double warmRate = warmUp / ((awaitSearchable() - w0) / 1e9);
            ServerProbe.awaitQuiet(server.pid());
            table.add("batch ingest, durable and searchable, first " + human(warmUp) + " (JIT warm-up)", warmRate,
                    "events/s", "", true, 0, "");

            // Batch ingest: 8 clients, batches of 1,000, until the last acknowledgement.
            long batchEvents = Math.min(totalEvents, 400_000);
            long t0 = System.nanoTime();
            long[] cpu0 = ServerProbe.cpuNanos(server.pid());
            double batchRate = batchIngest(8, 1000, batchEvents, warmUp);
            double searchableRate = batchEvents / ((awaitSearchable() - t0) / 1e9);
            long[] cpu1 = ServerProbe.cpuNanos(server.pid());
            table.add("batch ingest, durable (8 clients x 1,000/batch)", batchRate, "events/s", "", true,
                    fileBaseline, "file append + force/1000 frames");
            table.add("batch ingest, durable and searchable", searchableRate, "events/s", ">= 50,000",
                    searchableRate >= 50_000, fileBaseline, "file append + force/1000 frames");
            // CPU time per event moves much less with a noisy neighbour than a rate does.
            table.add("server CPU per event, batch (durable+searchable)", (cpu1[0] - cpu0[0]) / 1e3 / batchEvents, "us", "",
                    true, 0, "");
            table.add("client CPU per event, batch", (cpu1[1] - cpu0[1]) / 1e3 / batchEvents, "us", "", true, 0, "");

            if (neutral != null && !ingestOnly) {
                ServerProbe.awaitQuiet(server.pid());
                double[] nb = neutral.batchIngest(server.pid(), 20, warmUp + batchEvents);
                table.add("batch ingest, durable, wrk (8 conns x 1,000/batch)", nb[0], "events/s", "", true,
                        fileBaseline, "file append + force/1000 frames");
                table.add("batch ingest, durable and searchable, wrk", nb[1], "events/s", ">= 50,000", nb[1] >= 50_000,
                        fileBaseline, "file append + force/1000 frames");
                table.add("server CPU per event, batch, wrk", nb[2], "us", "", true, 0, "");
            }
            if (batchOnly) {
                return;
            }

            // Single-event ingest: 64 connections, one event at a time.
            if (neutralOnly) {
                fillAndSettle(server);
                neutral.latencies(stats().get("total_events").asLong(), sampleIds);
                return;
            }
            long[] cpu2 = ServerProbe.cpuNanos(server.pid());
            double[] single = singleIngest(64, Duration.ofSeconds(ingestOnly ? 10 : 20));
            long[] cpu3 = ServerProbe.cpuNanos(server.pid());
            table.add("single-event ingest (64 connections)", single[0], "events/s", ">= 10,000", single[0] >= 10_000,
                    fileBaseline, "file append + force/1000 frames");
            table.add("single-event latency p50", single[1], "ms", "", true, 0, "");
            table.add("single-event latency p99", single[2], "ms", "< 50", single[2] < 50, 0, "");
            table.add("server CPU per event, single", (cpu3[0] - cpu2[0]) / 1e3 / single[3], "us", "", true, 0, "");
            table.add("client CPU per event, single", (cpu3[1] - cpu2[1]) / 1e3 / single[3], "us", "", true, 0, "");
            if (ingestOnly) {
                return;
            }

            // Fill up to the total, with big-agent reaching a fifth of it (200,000 at 1,000,000 events):
            // the single-event scenario added events of other agents only.
            long size = fillAndSettle(server);

            double[] root = latency("/v1/merkle/root", 5000, i -> "/v1/merkle/root");
            table.add("GET /v1/merkle/root p50 @" + human(size), root[0], "ms", "", true, 0, "");
            table.add("GET /v1/merkle/root p99 @" + human(size), root[1], "ms", "<= 1", root[1] <= 1, 0, "");
            Random r = new Random(3);
            double[] proof = latency("/v1/merkle/proof", 5000,
                    i -> "/v1/merkle/proof?event_id=" + sampleIds.get(r.nextInt(sampleIds.size())));
            table.add("GET /v1/merkle/proof p50 @" + human(size), proof[0], "ms", "", true, 0, "");
            table.add("GET /v1/merkle/proof p99 @" + human(size), proof[1], "ms", "<= 2", proof[1] <= 2, 0, "");

            Random q = new Random(5);
            double[] selective = latency("/v1/search", 500,
                    i -> "/v1/search?q=" + enc("\"region " + q.nextInt((int) size) + "\""));
            if (selective != null) {
                table.add("search selective p50 @" + human(size), selective[0], "ms", "", true, 0, "");
                table.add("search selective p99 @" + human(size), selective[1], "ms", "", true, 0, "");
            }
            double[] broad = latency("/v1/search", 200, i -> "/v1/search?q=" + enc("revenue AND region"));
            if (broad != null) {
                table.add("search broad p50 @" + human(size), broad[0], "ms", "", true, 0, "");
                table.add("search broad p99 @" + human(size), broad[1], "ms", "", true, 0, "");
            }
            if (neutral != null) {
                neutral.latencies(size, sampleIds);
                ServerProbe.awaitQuiet(server.pid());
            }

            long bigCount = agentCount("big-agent");
            export("agent-1", agentCount("agent-1")); // warm-up: the export path compiled, as in a running service
            double exportRate = export("big-agent", bigCount);
            if (exportRate > 0) {
                table.add("export (agent of " + human(bigCount) + ")", exportRate, "events/s", ">= 100,000",
                        exportRate >= 100_000, shaBaseline, "SHA-256 of the same bytes");
            }
            double verifyRate = verify("big-agent", bigCount);
            table.add("GET /v1/verify (agent of " + human(bigCount) + ")", verifyRate, "events/s", ">= 200,000",
                    verifyRate >= 200_000, shaBaseline, "SHA-256 of the same bytes");

            long[] mem = ServerProbe.memory(server.pid());
            table.add("heap used after full GC @" + human(size), mem[0] / 1048576.0, "MB", "<= 512", mem[0] <= 512L << 20, 0, "");
            table.add("RSS @" + human(size), mem[1] / 1048576.0, "MB", "", true, 0, "");

            server.stop();
            closeConnection();
            server = ServerUnderTest.start(dist, data, heap);
            port = server.port;
            double clean = server.startNanos / 1e9;
            table.add("start after clean stop @" + human(size), clean, "s", "<= 3", clean <= 3, 0, "");
            batchIngest(4, 1000, 20_000, size);
            server.kill();
            closeConnection();
            server = ServerUnderTest.start(dist, data, heap);
            port = server.port;
            double crash = server.startNanos / 1e9;
            table.add("start after kill -9 @" + human(size), crash, "s", "<= 30", crash <= 30, 0, "");
        } finally {
            server.close();
            deleteTree(data);
            deleteTree(wrkWork);
        }
    }

    /** Fills the log up to the total (big-agent a fifth of it) and waits until the index and merges are done. */
    private long fillAndSettle(ServerUnderTest server) throws Exception {
        long have = stats().get("total_events").asLong();
        if (have < totalEvents) {
            long bigMissing = Math.max(0, Math.min(totalEvents - have, totalEvents / 5 - agentCount("big-agent")));
            batchIngest(8, 1000, bigMissing, have, n -> "big-agent");
            batchIngest(8, 1000, totalEvents - have - bigMissing, have + bigMissing, n -> "agent-" + (n % 50));
        }
        long size = stats().get("total_events").asLong();
        awaitSearchable(); // latencies are measured on a settled service, not while the index catches up
        ServerProbe.awaitQuiet(server.pid()); // nor while it merges index segments in the background
        System.err.println("filled to " + size + " events");
        return size;
    }

    /** Ids of events sampled during batch ingest (for proof requests). */
    List<String> sampleIds() {
        synchronized (sampleIds) {
            return List.copyOf(sampleIds);
        }
    }

    Table table() {
        return table;
    }

    // ------------------------------------------------------------------ scenarios

    double batchIngest(int clients, int batchSize, long events, long offset) throws Exception {
        return batchIngest(clients, batchSize, events, offset, LoadGenerator::agentFor);
    }

    double batchIngest(int clients, int batchSize, long events, long offset,
                       LongFunction<String> agentOf) throws Exception {
        return ingestEvents(clients, batchSize, events, offset, n -> SampleEvents.event(n, agentOf.apply(n)));
    }

    /** Batch ingest of the events {@code eventOf} gives for {@code offset}, {@code offset + 1}, ...; returns events/s durable. */
    double ingestEvents(int clients, int batchSize, long events, long offset,
                        LongFunction<String> eventOf) throws Exception {
        if (events <= 0) {
            return 0;
        }
        long batches = (events + batchSize - 1) / batchSize;
        AtomicLong next = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long t0 = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            fs.add(pool.submit(() -> {
                long b;
                while ((b = next.getAndIncrement()) < batches) {
                    StringBuilder body = new StringBuilder(batchSize * 520).append('[');
                    for (int i = 0; i < batchSize; i++) {
                        long n = offset + b * batchSize + i;
                        body.append(i == 0 ? "" : ",").append(eventOf.apply(n));
                    }
                    PlainHttp.Response resp = post("/v1/batch", body.append(']').toString());
                    if (resp.status() != 201) {
                        throw new IllegalStateException("batch answered " + resp.status() + ": " + resp.text());
                    }
                    if (b % 20 == 0) {
                        JsonNode items = JSON.readTree(resp.body());
                        synchronized (sampleIds) {
                            for (int i = 0; i < items.size(); i += 50) {
                                sampleIds.add(items.get(i).get("event").get("id").asText());
                            }
                        }
                    }
                }
                closeConnection();
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        double rate = batches * batchSize / seconds;
        System.err.printf(Locale.ROOT, "batch ingest: %,d events in %.1f s = %,.0f/s%n", batches * batchSize, seconds, rate);
        return rate;
    }

    /**
     * Waits until a listing answers: the server answers a list only once its index covers every event
     * acknowledged before the request (read after write), so this is when the batch became searchable.
     */
    long awaitSearchable() throws Exception {
        while (true) {
            PlainHttp.Response r = get("/v1/events?limit=1");
            if (r.status() == 200) {
                return System.nanoTime();
            }
            if (r.status() != 503) {
                throw new IllegalStateException("listing answered " + r.status() + ": " + r.text());
            }
        }
    }

    static String agentFor(long n) {
        return n % 5 == 0 ? "big-agent" : "agent-" + (n % 50);
    }

    double[] singleIngest(int connections, Duration length) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        long end = System.nanoTime() + length.toNanos();
        ConcurrentLinkedQueue<long[]> all = new ConcurrentLinkedQueue<>();
        AtomicLong count = new AtomicLong();
        long t0 = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            int client = c;
            fs.add(pool.submit(() -> {
                long[] lat = new long[1 << 16];
                int n = 0;
                long i = 0;
                while (System.nanoTime() < end) {
                    String body = SampleEvents.event(i++, "single-" + client);
                    long s = System.nanoTime();
                    PlainHttp.Response resp = post("/v1/events", body);
                    long d = System.nanoTime() - s;
                    if (resp.status() != 201) {
                        throw new IllegalStateException("event answered " + resp.status());
                    }
                    if (n == lat.length) {
                        lat = Arrays.copyOf(lat, n * 2);
                    }
                    lat[n++] = d;
                    count.incrementAndGet();
                }
                all.add(Arrays.copyOf(lat, n));
                closeConnection();
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        pool.shutdown();
        long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new double[] {count.get() / seconds, pct(merged, 0.50), pct(merged, 0.99), count.get()};
    }

    interface PathFor {
        String path(int i);
    }

    /** Sequential requests from one client: p50 and p99 in ms, or null when the endpoint does not exist. */
    double[] latency(String name, int requests, PathFor path) throws Exception {
        for (int i = 0; i < Math.min(200, requests); i++) {
            PlainHttp.Response warm = get(path.path(i));
            if (warm.status() == 404 && warm.text().contains("no such endpoint")) {
                return null;
            }
            if (warm.status() != 200) {
                throw new IllegalStateException(name + " answered " + warm.status() + ": " + warm.text());
            }
        }
        long[] lat = new long[requests];
        for (int i = 0; i < requests; i++) {
            String p = path.path(i);
            long s = System.nanoTime();
            PlainHttp.Response resp = get(p);
            lat[i] = System.nanoTime() - s;
            if (resp.status() != 200) {
                throw new IllegalStateException(name + " answered " + resp.status());
            }
        }
        Arrays.sort(lat);
        return new double[] {pct(lat, 0.50), pct(lat, 0.99)};
    }

    double export(String agent, long events) throws Exception {
        String path = "/v1/export?agent_id=" + agent;
        long t0 = System.nanoTime();
        long bytes = client.drain(path);
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.err.printf(Locale.ROOT, "export: %,d bytes in %.2f s%n", bytes, seconds);
        return events / seconds;
    }

    double verify(String agent, long events) throws Exception {
        get("/v1/verify?agent_id=" + agent);
        long t0 = System.nanoTime();
        PlainHttp.Response resp = get("/v1/verify?agent_id=" + agent);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (!resp.text().contains("\"valid\":true")) {
            throw new IllegalStateException("verify: " + resp.text());
        }
        return events / seconds;
    }

    long agentCount(String agent) throws Exception {
        for (JsonNode a : JSON.readTree(get("/v1/agents").text())) {
            if (a.get("agent_id").asText().equals(agent)) {
                return a.get("event_count").asLong();
            }
        }
        return 0;
    }

    JsonNode stats() throws Exception {
        return JSON.readTree(get("/v1/stats").text());
    }

    // ------------------------------------------------------------------ plumbing (LoadClient)

    PlainHttp.Response post(String path, String body) throws IOException, InterruptedException {
        return client.post(path, body);
    }

    PlainHttp.Response get(String path) throws IOException, InterruptedException {
        return client.get(path);
    }

    /** Closes this thread's connection (client threads end with their scenario). */
    void closeConnection() throws IOException {
        client.closeConnection();
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static double pct(long[] sortedNanos, double p) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int i = (int) Math.min(sortedNanos.length - 1, Math.ceil(p * sortedNanos.length) - 1);
        return sortedNanos[Math.max(0, i)] / 1e6;
    }

    static String human(long n) {
        return n >= 1_000_000 ? (n / 100_000) / 10.0 + "M" : n >= 1000 ? n / 1000 + "k" : Long.toString(n);
    }

    static void deleteTree(Path root) throws IOException {
        try (var walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
