package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The metrics figure: server CPU per event of batch ingest with metrics recorded (the
 * default) beside {@code metrics.enabled=false}, in the same run (goal: at most 3% more).
 *
 * <p>Two packaged servers, one with {@code metrics.enabled=false}; after a warm-up of both, rounds of
 * the batch ingest scenario (8 clients, 1,000 events of about 500 bytes a batch) alternate between
 * them (A B B A A B B A), each round's server CPU counted until that server is quiet again. Each
 * round on the recording server ends with one {@code GET /metrics}, as a scraper would take, and
 * its cost is counted in that round. The access log is off on both (its own cost is a log line per
 * request, not a metric).
 *
 * <pre>
 *   bench/run-metrics [--events N] [--rounds R]     (default 400,000 events, 4 rounds of each)
 * </pre>
 */
public final class MetricsBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;

    private final AtomicLong nextEvent = new AtomicLong();

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--rounds");
        Path dist = a.dist();
        long events = a.longOption("--events", 400_000);
        int rounds = a.intOption("--rounds", 4);
        Path work = Files.createTempDirectory("trailproof-metrics-bench");
        Path off = work.resolve("no-metrics.properties");
        Files.writeString(off, "metrics.enabled=false\n");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        MetricsBench b = new MetricsBench();
        try (ServerUnderTest without = ServerUnderTest.start(dist, work.resolve("off"), opts, "--config", off.toString());
             ServerUnderTest with = ServerUnderTest.start(dist, work.resolve("on"), opts)) {
            ServerUnderTest[] servers = {without, with};
            long warmUp = Math.max(BATCH * CLIENTS, events / 4);
            for (ServerUnderTest s : servers) {
                b.ingest(s.port, warmUp);
                ServerProbe.awaitQuiet(s.pid());
            }
            long perRound = Math.max(BATCH * CLIENTS, (events - warmUp) / (2L * rounds));
            int[] scrapeBytes = new int[1];
            AlternatingRounds.Totals t = AlternatingRounds.run(rounds, kind -> servers[kind].pid(), kind -> {
                long sent = b.ingest(servers[kind].port, perRound);
                if (kind == 1) {
                    scrapeBytes[0] = scrape(servers[kind].port);
                }
                return sent;
            });
            double ratio = t.cpuMicrosPerEvent(1) / t.cpuMicrosPerEvent(0);
            System.out.printf(Locale.ROOT, "%n| figure | value | goal |%n|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| batch ingest, metrics.enabled=false | %,.0f events/s, %.2f us server CPU per event | |%n",
                    t.rate(0), t.cpuMicrosPerEvent(0));
            System.out.printf(Locale.ROOT, "| batch ingest, metrics recorded (+1 scrape a round, %,d bytes) | %,.0f events/s, %.2f us server CPU per event | |%n",
                    scrapeBytes[0], t.rate(1), t.cpuMicrosPerEvent(1));
            System.out.printf(Locale.ROOT, "| server CPU per event with / without | %.3f (%+.1f%%) | <= 1.03 |%n",
                    ratio, (ratio - 1) * 100);
            System.out.printf(Locale.ROOT, "| rate with / without | %.3f | |%n", t.rate(1) / t.rate(0));
        }
    }

    private static int scrape(int port) throws Exception {
        try (PlainHttp http = new PlainHttp(port)) {
            PlainHttp.Response r = http.get("/metrics");
            if (r.status() != 200) {
                throw new IllegalStateException("/metrics answered " + r.status());
            }
            return r.text().length();
        }
    }

    private long ingest(int port, long events) throws Exception {
        return ClosedLoopClients.ingestBatches(port, CLIENTS, events, BATCH, nextEvent);
    }
}
