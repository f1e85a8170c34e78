package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The cost of capture sequences (src/site/completeness.md; goal: at most 5% more server CPU per
 * event): batch ingest of events with {@code capture_id} and {@code capture_seq} beside the same
 * events without, in the same run, on two packaged servers of the same build.
 *
 * <p>After a warm-up of both, rounds of the batch ingest scenario (8 clients, 1,000 events of about
 * 500 bytes a batch) alternate between them (A B B A A B B A), each round's server CPU counted until
 * that server is quiet again, so the gap tracker's catch-up after a round is counted too. With
 * capture fields, the events of agent {@code agent-k} form one stream numbered in event order; the
 * clients' batches race, so streams see numbers out of order and holes that fill moments later, as
 * with real clients.
 *
 * <pre>
 *   bench/run-capture [--events N]      (default 300,000: a quarter warm-up, then rounds)
 * </pre>
 */
public final class CaptureBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;
    private static final int AGENTS = 100;

    /** Each server's own event numbers, so a stream of one server has no numbers sent to the other. */
    private final AtomicLong[] nextEvent = {new AtomicLong(), new AtomicLong()};

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events");
        Path dist = a.dist();
        long events = a.longOption("--events", 300_000);
        Path work = Files.createTempDirectory("trailproof-capture-bench");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        CaptureBench b = new CaptureBench();
        try (ServerUnderTest plain = ServerUnderTest.start(dist, work.resolve("plain"), opts);
             ServerUnderTest captured = ServerUnderTest.start(dist, work.resolve("captured"), opts)) {
            ServerUnderTest[] servers = {plain, captured};
            long warmUp = Math.max(BATCH * CLIENTS, events / 4);
            for (int k = 0; k < 2; k++) {
                b.ingest(servers[k].port, warmUp, k == 1);
                ServerProbe.awaitQuiet(servers[k].pid());
            }
            int rounds = 4;
            long perRound = Math.max(BATCH * CLIENTS, (events - warmUp) / (2 * rounds));
            AlternatingRounds.Totals t = AlternatingRounds.run(rounds, kind -> servers[kind].pid(),
                    kind -> b.ingest(servers[kind].port, perRound, kind == 1));
            System.out.printf(Locale.ROOT, "%n| figure | value | goal |%n|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| batch ingest, no capture fields | %,.0f events/s, %.1f us server CPU per event | |%n",
                    t.rate(0), t.cpuMicrosPerEvent(0));
            System.out.printf(Locale.ROOT, "| batch ingest, capture_id and capture_seq | %,.0f events/s, %.1f us server CPU per event | |%n",
                    t.rate(1), t.cpuMicrosPerEvent(1));
            System.out.printf(Locale.ROOT, "| server CPU per event with / without | %.3f | <= 1.05 |%n",
                    t.cpuMicrosPerEvent(1) / t.cpuMicrosPerEvent(0));
        }
    }

    /** The sample event, with its capture stream and number when {@code captured}. */
    static String event(long i, boolean captured) {
        String agent = "agent-" + (i % AGENTS);
        String e = SampleEvents.event(i, agent);
        if (!captured) {
            return e;
        }
        return "{\"capture_id\":\"bench-" + agent + "\",\"capture_seq\":" + (i / AGENTS + 1) + "," + e.substring(1);
    }

    private long ingest(int port, long events, boolean captured) throws Exception {
        long batches = Math.max(1, events / BATCH);
        ClosedLoopClients.run(port, CLIENTS, batches, http -> {
            long first = nextEvent[captured ? 1 : 0].getAndAdd(BATCH);
            StringBuilder b = new StringBuilder(BATCH * 600).append('[');
            for (int i = 0; i < BATCH; i++) {
                b.append(i == 0 ? "" : ",").append(event(first + i, captured));
            }
            PlainHttp.Response r = http.post("/v1/batch", b.append(']').toString().getBytes(StandardCharsets.UTF_8), "");
            if (r.status() != 201) {
                throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
            }
        });
        return batches * BATCH;
    }
}
