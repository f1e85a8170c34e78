package io.trailproof.bench;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The figures that must not grow with the log, at one or more log sizes, each on a fresh server
 * (the packaged distribution at {@code -Xmx512m} by default) and data directory removed at the
 * end: ingest (durable and searchable), the first search right after the ingest, selective and broad
 * searches (own client and {@code wrk}), facets and a histogram over every event, verification of
 * one agent of 20,000 events, heap and RSS, and the start after a clean stop and after a kill -9.
 * With two sizes, the growth from the smaller to the larger is printed for the figures that must
 * stay flat.
 *
 * <p>Usage: {@code ScaleBench [DIST] [--events N] [--small M] [--heap 512m] [--wrk-dir DIR]}.
 */
public final class ScaleBench {

    /** Agents of the ordinary events; the selective query names one of them and one action name. */
    static final int AGENTS = 500;
    static final int ACTION_NAMES = 50;
    /** Events of the agent whose verification is timed. */
    static final long VERIFIED_AGENT_EVENTS = 20_000;
    static final String VERIFIED_AGENT = "verified-agent";

    private final Path dist;
    private final String heap;
    private final Wrk wrk;
    private final Table table = new Table();

    private ScaleBench(Path dist, String heap, Wrk wrk) {
        this.dist = dist;
        this.heap = heap;
        this.wrk = wrk;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--small", "--heap", "--wrk-dir");
        long events = a.longOption("--events", 10_000_000);
        long small = a.longOption("--small", 0);
        Wrk wrk = Wrk.find(a.pathOption("--wrk-dir", Path.of("bench/wrk")));
        if (wrk == null) {
            System.err.println("wrk not found (Debian: apt-get install wrk): its rows are skipped");
        }
        ScaleBench b = new ScaleBench(a.dist(), "-Xmx" + a.option("--heap", "512m"), wrk);
        String load0 = loadAverage();
        Map<String, Double> smaller = small > 0 ? b.run(small) : null;
        Map<String, Double> larger = b.run(events);
        if (smaller != null) {
            for (String figure : List.of("selective p50", "selective p99", "console page p50", "console page p99",
                    "broad p50", "start clean", "start kill")) {
                double ratio = larger.get(figure) / smaller.get(figure);
                b.table.add("growth " + LoadGenerator.human(small) + " -> " + LoadGenerator.human(events) + ", "
                        + figure, ratio, "x", "<= 1.5", ratio <= 1.5, 0, "");
            }
        }
        System.out.println();
        System.out.println(b.table.render(LoadGenerator.machine() + "; load average at start " + load0 + ", at end "
                + loadAverage()));
        System.exit(0);
    }

    /** One verification of the timed agent; its wall time in nanoseconds. */
    private static long verifyNanos(LoadGenerator g) throws Exception {
        long v = System.nanoTime();
        PlainHttp.Response resp = g.get("/v1/verify?agent_id=" + VERIFIED_AGENT);
        long took = System.nanoTime() - v;
        if (!resp.text().contains("\"valid\":true")) {
            throw new IllegalStateException("verify: " + resp.text());
        }
        return took;
    }

    /** The event of log position {@code n} in a log of {@code total}: about 500 bytes, as every benchmark's. */
    static String event(long n, long total) {
        long stride = Math.max(1, total / VERIFIED_AGENT_EVENTS);
        String agent = n % stride == 0 ? VERIFIED_AGENT : "agent-" + (n % AGENTS);
        return SampleEvents.event(n, agent).replace("\"search_database\"", "\"op" + (n / AGENTS) % ACTION_NAMES + "\"");
    }

    private Map<String, Double> run(long total) throws Exception {
        String at = " @" + LoadGenerator.human(total);
        Map<String, Double> figures = new HashMap<>();
        Path data = Files.createTempDirectory("trailproof-scale-data");
        Path work = Files.createTempDirectory("trailproof-scale-wrk");
        LoadGenerator g = new LoadGenerator(dist, total);
        // The GC log says whether a search's tail is a collection's pause (GcPauses).
        Path gcLog = work.resolve("gc.log");
        ServerUnderTest server = ServerUnderTest.start(dist, data, (heap + " -Xlog:gc:file=" + gcLog + " "
                + System.getProperty("bench.serverOpts", "")).trim());
        g.port = server.port;
        try {
            long t0 = System.nanoTime();
            long[] cpu0 = ServerProbe.cpuNanos(server.pid());
            double durable = g.ingestEvents(8, 1000, total, 0, n -> event(n, total));
            // The first search right after the last acknowledgement, while the index may still follow.
            long s = System.nanoTime();
            PlainHttp.Response first = g.get(selective(new Random(1)));
            double firstMs = (System.nanoTime() - s) / 1e6;
            long searchable = g.awaitSearchable();
            long[] cpu1 = ServerProbe.cpuNanos(server.pid());
            long size = g.stats().get("total_events").asLong();
            table.add("ingest durable" + at, durable, "events/s", "80,000", durable >= 80_000, 0, "");
            double searchableRate = size / ((searchable - t0) / 1e9);
            table.add("ingest durable and searchable" + at, searchableRate, "events/s", "80,000", searchableRate >= 80_000,
                    0, "");
            table.add("server CPU per event, ingest" + at, (cpu1[0] - cpu0[0]) / 1e3 / size, "us", "", true, 0, "");
            table.add("first search after ingest (" + first.status() + ")" + at, firstMs, "ms", "answered",
                    first.status() == 200, 0, "");
            ServerProbe.awaitQuiet(server.pid());

            Random r = new Random(7);
            GcPauses gc = GcPauses.from(gcLog);
            long[] c0 = ServerProbe.cpuNanos(server.pid());
            double[] sel = g.latency("/v1/search", 1000, i -> selective(r));
            long[] c1 = ServerProbe.cpuNanos(server.pid());
            GcPauses.Seen pauses = gc.since();
            table.add("selective search p50" + at, sel[0], "ms", "", true, 0, "");
            table.add("selective search p99" + at, sel[1], "ms", "<= 50", sel[1] <= 50, 0, "");
            table.add("  server CPU per selective search" + at, (c1[0] - c0[0]) / 1e6 / 1200, "ms", "", true, 0, "");
            table.add("  GC pauses during them: " + pauses.count() + ", longest" + at, pauses.longestMs(), "ms", "", true,
                    0, "");
            figures.put("selective p50", sel[0]);
            figures.put("selective p99", sel[1]);
            // The same searches as the console asks them: a page of 25, which both sizes fill.
            Random rc = new Random(7);
            c0 = ServerProbe.cpuNanos(server.pid());
            double[] console = g.latency("/v1/search", 1000, i -> selective(rc) + CONSOLE_PAGE);
            c1 = ServerProbe.cpuNanos(server.pid());
            table.add("selective search, console page, p50" + at, console[0], "ms", "", true, 0, "");
            table.add("selective search, console page, p99" + at, console[1], "ms", "<= 50", console[1] <= 50, 0, "");
            table.add("  server CPU per console-page search" + at, (c1[0] - c0[0]) / 1e6 / 1200, "ms", "", true, 0, "");
            figures.put("console page p50", console[0]);
            figures.put("console page p99", console[1]);
            String all = "/v1/search?q=" + LoadGenerator.enc("*:*");
            exactTotal(g, all, size);
            c0 = ServerProbe.cpuNanos(server.pid());
            double[] broad = g.latency("/v1/search", 100, i -> all);
            c1 = ServerProbe.cpuNanos(server.pid());
            table.add("broad *:* p50 (exact total)" + at, broad[0], "ms", "<= 200", broad[0] <= 200, 0, "");
            table.add("  server CPU per broad *:*" + at, (c1[0] - c0[0]) / 1e6 / 200, "ms", "", true, 0, "");
            figures.put("broad p50", broad[0]);
            String word = "/v1/search?q=revenue";
            exactTotal(g, word, size);
            c0 = ServerProbe.cpuNanos(server.pid());
            double[] scored = g.latency("/v1/search", 30, i -> word);
            c1 = ServerProbe.cpuNanos(server.pid());
            table.add("broad scored word p50 (exact total)" + at, scored[0], "ms", "", true, 0, "");
            table.add("  server CPU per broad scored word" + at, (c1[0] - c0[0]) / 1e6 / 60, "ms", "", true, 0, "");
            String summary = all + "&facets=agent_id,action_type,action_status&histogram=PT1M&limit=20";
            c0 = ServerProbe.cpuNanos(server.pid());
            double[] sum = g.latency("/v1/search", 30, i -> summary);
            c1 = ServerProbe.cpuNanos(server.pid());
            table.add("broad *:* + 3 facets + histogram p50" + at, sum[0], "ms", "<= 200", sum[0] <= 200, 0, "");
            table.add("  server CPU per facets + histogram" + at, (c1[0] - c0[0]) / 1e6 / 60, "ms", "", true, 0, "");
            if (wrk != null) {
                List<String> paths = new ArrayList<>();
                Random w = new Random(11);
                for (int i = 0; i < 1000; i++) {
                    paths.add(selective(w));
                }
                Path file = work.resolve("selective.txt");
                Files.write(file, paths, StandardCharsets.UTF_8);
                String url = "http://127.0.0.1:" + server.port + "/";
                Wrk.Result ws = wrk.run(url, 1, 8, Map.of("WRK_PATHS_FILE", file.toString()));
                table.addLatency("selective search" + at, "wrk", 1, ws.rate(), ws.p50(), ws.p90(), ws.p99(), ws.max(),
                        "<= 50", ws.p99() <= 50);
                Path consoleFile = work.resolve("selective-console.txt");
                Files.write(consoleFile, paths.stream().map(p -> p + CONSOLE_PAGE).toList(), StandardCharsets.UTF_8);
                Wrk.Result wc = wrk.run(url, 1, 8, Map.of("WRK_PATHS_FILE", consoleFile.toString()));
                table.addLatency("selective search, console page" + at, "wrk", 1, wc.rate(), wc.p50(), wc.p90(), wc.p99(),
                        wc.max(), "<= 50", wc.p99() <= 50);
                Wrk.Result wb = wrk.run("http://127.0.0.1:" + server.port + all, 1, 8, Map.of());
                table.addLatency("broad search *:*" + at, "wrk", 1, wb.rate(), wb.p50(), wb.p90(), wb.p99(), wb.max(),
                        "", true);
            }

            // The first verification runs the walk's code before the JIT has compiled it; a running
            // service has (its chain re-verification after a start walks every chain): five more
            // unmeasured, then the timed ones.
            String agent = LoadGenerator.human(Math.min(total, VERIFIED_AGENT_EVENTS));
            table.add("verify agent of " + agent + ", first call" + at, verifyNanos(g) / 1e6, "ms", "", true, 0, "");
            for (int i = 0; i < 5; i++) {
                verifyNanos(g);
            }
            long[] verify = new long[10];
            for (int i = 0; i < verify.length; i++) {
                verify[i] = verifyNanos(g);
            }
            Arrays.sort(verify);
            double verifyMs = LoadGenerator.pct(verify, 0.5);
            table.add("verify agent of " + agent + " p50" + at, verifyMs, "ms", "<= 100", verifyMs <= 100, 0, "");

            long[] mem = ServerProbe.memory(server.pid());
            table.add("heap after full GC" + at, mem[0] / 1048576.0, "MB", "", true, 0, "");
            table.add("RSS" + at, mem[1] / 1048576.0, "MB", "", true, 0, "");
            // Every search and every start pays a fixed cost in each segment of the index.
            table.add("search index segments" + at, indexSegments(data), "", "", true, 0, "");

            server.stop();
            g.closeConnection();
            server = ServerUnderTest.start(dist, data, heap);
            g.port = server.port;
            double clean = server.startNanos / 1e9;
            table.add("start after a clean stop" + at, clean, "s", "<= 3", clean <= 3, 0, "");
            figures.put("start clean", clean);
            g.ingestEvents(4, 1000, 20_000, size, n -> event(n, total));
            server.kill();
            g.closeConnection();
            server = ServerUnderTest.start(dist, data, heap);
            g.port = server.port;
            double crash = server.startNanos / 1e9;
            table.add("start after kill -9" + at, crash, "s", "<= 3", crash <= 3, 0, "");
            figures.put("start kill", crash);
            g.closeConnection();
        } finally {
            server.close();
            LoadGenerator.deleteTree(data);
            LoadGenerator.deleteTree(work);
        }
        return figures;
    }

    /** {@code agent_id:agent-K AND action_name:opJ}: about 1 in 25,000 events of the log. */
    /** Segments in the live index generations (one {@code .si} file each), the trail's index included. */
    private static long indexSegments(Path data) throws IOException {
        try (Stream<Path> files = Files.walk(data.resolve("index"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".si")).count();
        }
    }

    /**
     * The console's page (its {@code PAGE_SIZE}): the selective query has about 40 matches in a
     * million events and 400 in ten million, so the default page of 100 returns 40 events at the one
     * size and 100 at the other, and its cost follows what it returns; a page of 25 is full at both.
     */
    private static final String CONSOLE_PAGE = "&limit=25";

    private static String selective(Random r) {
        return "/v1/search?q=" + LoadGenerator.enc("agent_id:agent-" + r.nextInt(AGENTS) + " AND action_name:op"
                + r.nextInt(ACTION_NAMES));
    }

    /** The broad searches' totals are exact: every event matches them. */
    private static void exactTotal(LoadGenerator g, String path, long size) throws Exception {
        JsonNode answer = LoadGenerator.JSON.readTree(g.get(path + "&limit=1").text());
        if (answer.path("total").asLong() != size) {
            throw new IllegalStateException(path + " answered total " + answer.path("total") + ", the log holds " + size);
        }
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return String.format(Locale.ROOT, "%s/%s/%s", f[0], f[1], f[2]);
        } catch (Exception e) {
            return "unknown";
        }
    }
}
