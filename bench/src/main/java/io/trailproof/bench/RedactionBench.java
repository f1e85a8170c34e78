package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The redaction figure: batch ingest with redaction on (every built-in rule) beside off, in
 * the same run (goal: at least 0.7 of the rate without).
 *
 * <p>Two packaged servers, one with {@code redaction.enabled=true}; after a warm-up of both, rounds
 * of the batch ingest scenario (8 clients, 1,000 events of about 500 bytes a batch; one event in ten
 * also holds an e-mail address, an IP and a card number, so the rules replace something) alternate
 * between them (A B B A A B B A), each round's server CPU counted until that server is quiet again.
 *
 * <pre>
 *   bench/run-redaction [--events N]      (default 400,000: 100,000 warm-up for each, then rounds)
 * </pre>
 */
public final class RedactionBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;

    private final AtomicLong nextEvent = new AtomicLong();

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events");
        Path dist = a.dist();
        long events = a.longOption("--events", 400_000);
        Path work = Files.createTempDirectory("trailproof-redaction-bench");
        Path on = work.resolve("redaction.properties");
        Files.writeString(on, "redaction.enabled=true\n");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        RedactionBench b = new RedactionBench();
        try (ServerUnderTest off = ServerUnderTest.start(dist, work.resolve("off"), opts);
             ServerUnderTest redacting = ServerUnderTest.start(dist, work.resolve("on"), opts, "--config", on.toString())) {
            ServerUnderTest[] servers = {off, redacting};
            long warmUp = Math.max(BATCH * CLIENTS, events / 4);
            for (ServerUnderTest s : servers) {
                b.ingest(s.port, warmUp);
                ServerProbe.awaitQuiet(s.pid());
            }
            int rounds = 4;
            long perRound = Math.max(BATCH * CLIENTS, (events - warmUp) / (2 * rounds));
            AlternatingRounds.Totals t = AlternatingRounds.run(rounds, kind -> servers[kind].pid(),
                    kind -> b.ingest(servers[kind].port, perRound));
            System.out.printf(Locale.ROOT, "%n| figure | value | goal |%n|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| batch ingest, redaction off | %,.0f events/s, %.1f us server CPU per event | |%n",
                    t.rate(0), t.cpuMicrosPerEvent(0));
            System.out.printf(Locale.ROOT, "| batch ingest, redaction on (17 built-in rules) | %,.0f events/s, %.1f us server CPU per event | |%n",
                    t.rate(1), t.cpuMicrosPerEvent(1));
            System.out.printf(Locale.ROOT, "| rate on / off | %.2f | >= 0.7 |%n", t.rate(1) / t.rate(0));
            System.out.printf(Locale.ROOT, "| server CPU per event on / off | %.2f | |%n",
                    t.cpuMicrosPerEvent(1) / t.cpuMicrosPerEvent(0));
        }
    }

    /** The sample event; one in ten also carries an e-mail address, an IP and a card number. */
    static String event(long i) {
        String e = SampleEvents.event(i, "agent-" + (i % 100));
        if (i % 10 != 0) {
            return e;
        }
        return e.substring(0, e.length() - 2) + ",\"contact\":\"mail bob" + i + "@example.com from 10.0.0." + (i % 250)
                + ", card 4111 1111 1111 1111\"}}";
    }

    private long ingest(int port, long events) throws Exception {
        long batches = Math.max(1, events / BATCH);
        ClosedLoopClients.run(port, CLIENTS, batches, http -> {
            long first = nextEvent.getAndAdd(BATCH);
            StringBuilder b = new StringBuilder(BATCH * 560).append('[');
            for (int i = 0; i < BATCH; i++) {
                b.append(i == 0 ? "" : ",").append(event(first + i));
            }
            PlainHttp.Response r = http.post("/v1/batch", b.append(']').toString().getBytes(StandardCharsets.UTF_8), "");
            if (r.status() != 201) {
                throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
            }
        });
        return batches * BATCH;
    }
}
