package io.trailproof.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The figures for {@code Idempotency-Key}: server CPU per event of batch ingest with a key on
 * every batch against the same without keys (goal: at most 1.05), and the latency of a replayed
 * answer (goal: p99 at most 5 ms).
 *
 * <p>One packaged server; after a warm-up, rounds of the same batch ingest scenario (8 clients,
 * 1,000 events of about 500 bytes a batch) alternate without and with keys (A B B A A B B A), so that
 * drift on a shared machine, and whatever the round before leaves behind, hit both alike; each
 * round's server CPU is counted until the server is idle again (the indexing that trails it
 * included); the ratio is of the summed CPU. Then keyed batches
 * already stored are sent again one at a time (1,000-event batches and single events): the replay
 * latency percentiles.
 *
 * <pre>
 *   bench/run-idempotency [--events N]      (default 400,000: 100,000 warm-up, then rounds)
 * </pre>
 */
public final class IdempotencyBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;

    private final int port;
    private final AtomicLong nextEvent = new AtomicLong();
    private final AtomicLong nextKey = new AtomicLong();

    private IdempotencyBench(int port) {
        this.port = port;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events");
        Path dist = a.dist();
        long events = a.longOption("--events", 400_000);
        Path data = Files.createTempDirectory("trailproof-idem-bench");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, opts)) {
            IdempotencyBench b = new IdempotencyBench(server.port);
            long warmUp = Math.max(BATCH * CLIENTS, events / 4);
            b.ingest(warmUp, false);
            b.ingest(warmUp / 4, true);
            ServerProbe.awaitQuiet(server.pid());
            int rounds = 4;
            long perRound = Math.max(BATCH * CLIENTS, (events - warmUp) / (2 * rounds));
            AlternatingRounds.Totals t = AlternatingRounds.run(rounds, kind -> server.pid(),
                    kind -> b.ingest(perRound, kind == 1));
            double plain = t.cpuMicrosPerEvent(0);
            double withKey = t.cpuMicrosPerEvent(1);
            ServerProbe.awaitQuiet(server.pid());
            double[] batchReplay = b.replays(300, BATCH, server.pid());
            double[] singleReplay = b.replays(2000, 1, server.pid());
            Wrk wrk = Wrk.find(Path.of("bench/wrk"));
            Wrk.Result wrkReplay = wrk == null ? null : b.wrkReplays(wrk, 300, data, server.pid());
            System.out.printf(Locale.ROOT, "%n| figure | value | goal |%n|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| server CPU per event, batch ingest without keys | %.1f us (%,.0f events/s) | |%n",
                    plain, t.rate(0));
            System.out.printf(Locale.ROOT, "| server CPU per event, batch ingest with a key on every batch | %.1f us (%,.0f events/s) | |%n",
                    withKey, t.rate(1));
            System.out.printf(Locale.ROOT, "| ratio with / without keys | %.3f | <= 1.05 |%n", withKey / plain);
            System.out.printf(Locale.ROOT, "| replayed answer, 1,000-event batch, p50 / p99 | %.2f / %.2f ms | p99 <= 5 |%n",
                    batchReplay[0], batchReplay[1]);
            System.out.printf(Locale.ROOT, "| replayed answer, single event, p50 / p99 | %.2f / %.2f ms | p99 <= 5 |%n",
                    singleReplay[0], singleReplay[1]);
            if (wrkReplay != null) {
                System.out.printf(Locale.ROOT, "| wrk, 1 connection, replays of 300 recorded 1,000-event batches for %.0f s: "
                        + "p50 / p90 / p99 / max | %.2f / %.2f / %.2f / %.2f ms (%,d replays) | p99 <= 5 |%n",
                        wrkReplay.seconds(), wrkReplay.p50(), wrkReplay.p90(), wrkReplay.p99(), wrkReplay.max(),
                        wrkReplay.requests());
            } else {
                System.out.println("(wrk not installed: the neutral client's replay row is skipped)");
            }
        }
    }

    private static String body(long first, int n) {
        StringBuilder b = new StringBuilder(n * 520).append('[');
        for (int i = 0; i < n; i++) {
            long e = first + i;
            b.append(i == 0 ? "" : ",").append(SampleEvents.event(e, "agent-" + (e % 100)));
        }
        return b.append(']').toString();
    }

    /** The batch ingest scenario, with or without a fresh key on every batch; returns the events stored. */
    private long ingest(long events, boolean keyed) throws Exception {
        long batches = Math.max(1, events / BATCH);
        ClosedLoopClients.run(port, CLIENTS, batches, http -> {
            byte[] json = body(nextEvent.getAndAdd(BATCH), BATCH).getBytes(StandardCharsets.UTF_8);
            String header = keyed ? "Idempotency-Key: bench-" + nextKey.getAndIncrement() + "\r\n" : "";
            PlainHttp.Response r = http.post("/v1/batch", json, header);
            if (r.status() != 201) {
                throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
            }
        });
        return batches * BATCH;
    }

    /**
     * The neutral client's replay figure: {@code n} keys each stored with the same 1,000-event body
     * (so wrk sends one body; each key's events are n different stretches of the log), then wrk on one
     * connection replays them in turn, 10 s of warm-up and 10 s measured.
     */
    private Wrk.Result wrkReplays(Wrk wrk, int n, Path work, long serverPid) throws Exception {
        byte[] json = body(nextEvent.getAndAdd(BATCH), BATCH).getBytes(StandardCharsets.UTF_8);
        Path bodyFile = work.resolveSibling(work.getFileName() + "-replay-body.json");
        Path keysFile = work.resolveSibling(work.getFileName() + "-replay-keys.txt");
        Files.write(bodyFile, json);
        List<String> keys = new ArrayList<>();
        try (PlainHttp http = new PlainHttp(port)) {
            for (int i = 0; i < n; i++) {
                String key = "wrk-replay-" + nextKey.getAndIncrement();
                if (http.post("/v1/batch", json, "Idempotency-Key: " + key + "\r\n").status() != 201) {
                    throw new IllegalStateException("store before replay failed");
                }
                keys.add(key);
            }
        }
        Files.write(keysFile, keys);
        ServerProbe.awaitQuiet(serverPid);
        try {
            Map<String, String> env = Map.of("WRK_BODY_FILE", bodyFile.toString(),
                    "WRK_KEYS_FILE", keysFile.toString());
            String url = "http://127.0.0.1:" + port + "/v1/batch";
            wrk.run(url, 1, 10, env);
            return wrk.run(url, 1, 10, env);
        } finally {
            Files.deleteIfExists(bodyFile);
            Files.deleteIfExists(keysFile);
        }
    }

    /**
     * Stores {@code n} keyed requests of {@code size} events, waits until the server has indexed them
     * (a replay's latency, not that of the indexing its first requests left behind: 300 batches are
     * 300,000 events to index), then sends each again: replay p50 and p99 in ms.
     */
    private double[] replays(int n, int size, long serverPid) throws Exception {
        String path = size == 1 ? "/v1/events" : "/v1/batch";
        List<byte[]> bodies = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        try (PlainHttp http = new PlainHttp(port)) {
            for (int i = 0; i < n; i++) {
                String json = size == 1 ? SampleEvents.event(nextEvent.getAndIncrement(), "replay")
                        : body(nextEvent.getAndAdd(size), size);
                byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
                String key = "Idempotency-Key: replay-" + nextKey.getAndIncrement() + "\r\n";
                if (http.post(path, bytes, key).status() != 201) {
                    throw new IllegalStateException("store before replay failed");
                }
                bodies.add(bytes);
                keys.add(key);
            }
            ServerProbe.awaitQuiet(serverPid);
            double[] ms = new double[n];
            for (int round = 0; round < 2; round++) {   // the first round warms the replay path up
                for (int i = 0; i < n; i++) {
                    long t0 = System.nanoTime();
                    int status = http.postDroppingAnswer(path, bodies.get(i), keys.get(i));
                    ms[i] = (System.nanoTime() - t0) / 1e6;
                    if (status != 201) {
                        throw new IllegalStateException("replay answered " + status);
                    }
                }
            }
            Arrays.sort(ms);
            return new double[] {ms[n / 2], ms[(int) Math.ceil(n * 0.99) - 1]};
        }
    }
}
