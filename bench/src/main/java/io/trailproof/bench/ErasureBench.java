package io.trailproof.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The erasure figures (src/site/erasure.md), in one run against the packaged server:
 *
 * <ul>
 *   <li><b>one event</b> erased ({@code event_ids}) in a log of {@code --small} events and in one of
 *       {@code --events} events (default 100,000 and 1,000,000 of about 500 bytes): the time to the
 *       answer and the log segments rewritten. The rewrite is of the segments that hold the event, so
 *       the time follows the segments touched (one), not the log's size;</li>
 *   <li><b>10,000 events of one agent</b> (one agent of the 100 in the large log, spread over every
 *       segment): time to the answer and segments rewritten;</li>
 *   <li><b>ingest rate during erasures</b>: 8 clients posting batches of 1,000 while erasures (each of
 *       one agent's events, every segment rewritten) run back to back, beside the same ingest with
 *       nothing else running, alternated (0 1 1 0); goal: at least 0.8 of it.</li>
 * </ul>
 *
 * <pre>
 *   bench/run-erasure [--events N] [--small N] [--ingest N]
 * </pre>
 * The server takes its other settings from the environment as usual (for example
 * {@code TRAILPROOF_LOG_SEGMENT_BYTES=8388608} for more, smaller segments in a shorter run).
 */
public final class ErasureBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;

    private final AtomicLong nextEvent = new AtomicLong();

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--small", "--ingest");
        long events = a.longOption("--events", 1_000_000);
        long small = a.longOption("--small", events / 10);
        long ingest = a.longOption("--ingest", Math.max(20_000, events / 10));
        Path work = Files.createTempDirectory("trailproof-erasure-bench");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        System.out.printf(Locale.ROOT, "erasure benchmark: logs of %,d and %,d events, ingest windows of %,d events%n",
                small, events, ingest);
        Map<String, String> rows = new java.util.LinkedHashMap<>();
        for (long size : new long[] {small, events}) {
            ErasureBench b = new ErasureBench();
            Path data = work.resolve("data-" + size);
            try (ServerUnderTest s = ServerUnderTest.start(a.dist(), data, opts)) {
                String id = b.fill(s.port, size);
                ServerProbe.awaitQuiet(s.pid());
                int segments = segments(data).size();
                Timed one = erase(s.port, data, "{\"event_ids\":[\"" + id + "\"],\"reason\":\"bench\"}");
                rows.put(String.format(Locale.ROOT, "one event, log of %,d events (%d segments)", size, segments),
                        one.line());
                if (size == events) {
                    ServerProbe.awaitQuiet(s.pid());
                    Timed agent = erase(s.port, data, "{\"agent_id\":\"agent-7\",\"reason\":\"bench\"}");
                    rows.put(String.format(Locale.ROOT, "one agent (%,d events), log of %,d events", agent.erased, size),
                            agent.line());
                    ServerProbe.awaitQuiet(s.pid());
                    b.ingestDuringErasures(s, data, ingest, rows);
                }
            }
        }
        System.out.println();
        rows.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-58s %s%n", k, v));
        deleteTree(work);
    }

    /** Ingests about {@code size} sample events (100 agents) with one marked event in the middle; returns its id. */
    private String fill(int port, long size) throws Exception {
        long t0 = System.nanoTime();
        ClosedLoopClients.ingestBatches(port, CLIENTS, size / 2, BATCH, nextEvent);
        String id;
        try (PlainHttp http = new PlainHttp(port)) {
            PlainHttp.Response r = http.post("/v1/events", SampleEvents.event(nextEvent.getAndIncrement(), "needle")
                    .getBytes(StandardCharsets.UTF_8));
            if (r.status() != 201) {
                throw new IllegalStateException("POST /v1/events answered " + r.status() + ": " + r.text());
            }
            id = JSON.readTree(r.body()).get("id").asText();
        }
        ClosedLoopClients.ingestBatches(port, CLIENTS, size - size / 2, BATCH, nextEvent);
        System.out.printf(Locale.ROOT, "  ingested %,d events in %.1f s%n", size, (System.nanoTime() - t0) / 1e9);
        return id;
    }

    private record Timed(double seconds, long erased, int rewritten) {
        String line() {
            return String.format(Locale.ROOT, "%8.2f s  %,7d erased  %2d segments rewritten", seconds, erased, rewritten);
        }
    }

    private static Timed erase(int port, Path data, String body) throws Exception {
        Map<Path, FileTime> before = segments(data);
        long t0 = System.nanoTime();
        JsonNode answer;
        try (PlainHttp http = new PlainHttp(port)) {
            PlainHttp.Response r = http.post("/v1/admin/erasures", body.getBytes(StandardCharsets.UTF_8));
            if (r.status() != 200) {
                throw new IllegalStateException("erasure answered " + r.status() + ": " + r.text());
            }
            answer = JSON.readTree(r.body());
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        Map<Path, FileTime> after = segments(data);
        int rewritten = 0;
        for (Map.Entry<Path, FileTime> e : before.entrySet()) {
            FileTime now = after.get(e.getKey());
            if (now != null && !now.equals(e.getValue())) {
                rewritten++;
            }
        }
        return new Timed(seconds, answer.get("erased").asLong(), rewritten);
    }

    /**
     * Ingest windows of {@code events} alone and with erasures of whole agents running back to back,
     * alternated 0 1 1 0; the ratio of the rates.
     */
    private void ingestDuringErasures(ServerUnderTest s, Path data, long events, Map<String, String> rows)
            throws Exception {
        double[] seconds = new double[2];
        long[] sent = new long[2];
        int[] erasures = new int[1];
        AtomicInteger agent = new AtomicInteger(10);
        for (int kind : new int[] {0, 1, 1, 0}) {
            AtomicBoolean running = new AtomicBoolean(kind == 1);
            Thread eraser = new Thread(() -> {
                while (running.get()) {
                    try {
                        erase(s.port, data, "{\"agent_id\":\"agent-" + agent.getAndIncrement() + "\",\"reason\":\"bench\"}");
                        erasures[0]++;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, "eraser");
            if (kind == 1) {
                eraser.start();
            }
            long t0 = System.nanoTime();
            sent[kind] += ClosedLoopClients.ingestBatches(s.port, CLIENTS, events, BATCH, nextEvent);
            seconds[kind] += (System.nanoTime() - t0) / 1e9;
            running.set(false);
            if (kind == 1) {
                eraser.join();
            }
            ServerProbe.awaitQuiet(s.pid());
        }
        double alone = sent[0] / seconds[0];
        double during = sent[1] / seconds[1];
        rows.put("ingest, nothing else running", String.format(Locale.ROOT, "%,8.0f events/s", alone));
        rows.put(String.format(Locale.ROOT, "ingest during erasures (%d erasures of one agent)", erasures[0]),
                String.format(Locale.ROOT, "%,8.0f events/s  ratio %.2f (goal >= 0.8)", during, during / alone));
    }

    /** Every segment of the event log ({@code DIR/log}) and its modification time. */
    private static Map<Path, FileTime> segments(Path data) throws IOException {
        Map<Path, FileTime> out = new HashMap<>();
        try (Stream<Path> files = Files.list(data.resolve("log"))) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.getFileName().toString().endsWith(".seg"))::iterator) {
                out.put(p, Files.getLastModifiedTime(p));
            }
        }
        return out;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
