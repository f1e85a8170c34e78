package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The OTLP figures: OTLP ingest ({@code POST /v1/traces}, protobuf, 512 GenAI-shaped spans of
 * about 1 KB a request, 8 clients) beside JSON batch ingest of the same events ({@code POST
 * /v1/batch}, 512 a request, 8 clients) in the same run: events/s durable (last answer) and
 * searchable (the index holds them), and server CPU per event (goal: OTLP at least 0.8 of the JSON
 * batch rate per event).
 *
 * <p>One packaged server; after a warm-up of both, rounds alternate JSON and OTLP (A B B A ...), so
 * that drift on a shared machine hits both alike; each round's server CPU is counted until the
 * server is idle again, so the indexing that trails a round is charged to it.
 *
 * <pre>
 *   bench/run-otlp [--requests N] [--rounds R]     (default 200 requests of 512 a round, 4 rounds)
 * </pre>
 */
public final class OtlpBench {

    private static final int CLIENTS = 8;
    private static final int PER_REQUEST = 512;

    private final int port;
    private final AtomicLong next = new AtomicLong();

    private OtlpBench(int port) {
        this.port = port;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--requests", "--rounds");
        Path dist = a.dist();
        int requests = a.intOption("--requests", 200);
        int rounds = a.intOption("--rounds", 4);
        Path data = Files.createTempDirectory("trailproof-otlp-bench");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, opts)) {
            OtlpBench b = new OtlpBench(server.port);
            int warmUp = Math.max(CLIENTS, requests / 2);
            b.ingest(false, warmUp);
            b.ingest(true, warmUp);
            b.awaitSearchable();
            ServerProbe.awaitQuiet(server.pid());
            long[] cpu = new long[2];
            long[] clientCpu = new long[2];
            long[] events = new long[2];
            double[] durable = new double[2];
            double[] searchable = new double[2];
            int[] order = {0, 1, 1, 0};
            for (int r = 0; r < Math.max(2, rounds); r++) {
                int otlp = order[r % order.length];
                long[] c0 = ServerProbe.cpuNanos(server.pid());
                long t0 = System.nanoTime();
                events[otlp] += b.ingest(otlp == 1, requests);
                durable[otlp] += (System.nanoTime() - t0) / 1e9;
                b.awaitSearchable();
                searchable[otlp] += (System.nanoTime() - t0) / 1e9;
                ServerProbe.awaitQuiet(server.pid());
                long[] c1 = ServerProbe.cpuNanos(server.pid());
                cpu[otlp] += c1[0] - c0[0];
                clientCpu[otlp] += c1[1] - c0[1];
            }
            String[] names = {"JSON batch (POST /v1/batch)", "OTLP protobuf (POST /v1/traces)"};
            System.out.printf(Locale.ROOT, "%n| %d events a request, %d clients | durable events/s | searchable events/s "
                    + "| server CPU per event | client CPU per event |%n|---|---|---|---|---|%n", PER_REQUEST, CLIENTS);
            for (int k = 0; k < 2; k++) {
                System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %.1f us | %.1f us |%n", names[k],
                        events[k] / durable[k], events[k] / searchable[k], cpu[k] / 1e3 / events[k],
                        clientCpu[k] / 1e3 / events[k]);
            }
            double rateRatio = (events[1] / searchable[1]) / (events[0] / searchable[0]);
            double cpuRatio = (cpu[0] / (double) events[0]) / (cpu[1] / (double) events[1]);
            System.out.printf(Locale.ROOT, "| OTLP / JSON, searchable rate | %.2f (goal >= 0.8) | | | |%n", rateRatio);
            System.out.printf(Locale.ROOT, "| JSON / OTLP, server CPU per event (> 1: OTLP cheaper) | %.2f | | | |%n", cpuRatio);
        }
    }

    /** {@code requests} requests of {@link #PER_REQUEST} events from {@link #CLIENTS} clients; returns the events sent. */
    private long ingest(boolean otlp, int requests) throws Exception {
        ClosedLoopClients.run(port, CLIENTS, requests, http -> {
            long first = next.getAndAdd(PER_REQUEST);
            PlainHttp.Response r = otlp
                    ? http.post("/v1/traces", GenAiSpans.export(first, PER_REQUEST), "application/x-protobuf", "")
                    : http.post("/v1/batch", GenAiSpans.batch(first, PER_REQUEST).getBytes(StandardCharsets.UTF_8));
            int expected = otlp ? 200 : 201;
            if (r.status() != expected || otlp && r.body().length != 0) {   // a partial success has a body
                throw new IllegalStateException((otlp ? "export" : "batch") + " answered " + r.status() + ": " + r.text());
            }
        });
        return (long) requests * PER_REQUEST;
    }

    /** Returns once the index holds everything acknowledged (a listing waits for that, src/site/http-api.md#conventions). */
    private void awaitSearchable() throws Exception {
        try (PlainHttp http = new PlainHttp(port)) {
            while (true) {
                PlainHttp.Response r = http.get("/v1/events?limit=1");
                if (r.status() == 200) {
                    return;
                }
                if (r.status() != 503) {
                    throw new IllegalStateException("listing answered " + r.status() + ": " + r.text());
                }
            }
        }
    }
}
