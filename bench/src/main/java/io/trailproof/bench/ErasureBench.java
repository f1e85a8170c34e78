package io.trailproof.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
 *   <li><b>one event</b> erased ({@code event_ids}) in a log of {@code --events} events (and first in
 *       one of {@code --small} events when given): the time to the answer (content gone from the log
 *       and the search index), the log segments rewritten and the search index's size. The rewrite
 *       is of what holds the event, so the time should follow the segments touched, not the log;</li>
 *   <li><b>one agent's events</b>: the fill gives agent {@value #AGENT} {@code --agent-events} events
 *       (default 10,000, at most half the log), spread evenly over the whole log so that every segment
 *       holds some; time to the answer and segments rewritten;</li>
 *   <li><b>ingest rate during erasures</b>, on the {@code --events} log: 8 clients posting batches of
 *       1,000 while erasures (each of one of the 100 other agents, a share of every segment) run back to
 *       back, beside the same ingest with nothing else running, alternated (0 1 1 0); goal: at least 0.8
 *       of it.</li>
 * </ul>
 *
 * <pre>
 *   bench/run-erasure [--events N] [--small N] [--agent-events N] [--ingest N] [--segment-bytes N] [--share S]
 * </pre>
 * {@code --segment-bytes} sets the server's {@code log.segment-bytes} (more, smaller segments in a
 * short run); {@code --share} its {@code erasure.share-while-ingesting} (1: erasures unpaced); {@code --agent-events 0} and {@code --ingest 0} leave out the agent's erasure and the
 * ingest windows (a quick look at one event in a large log). The server takes its other settings
 * from the environment as usual.
 */
public final class ErasureBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;
    static final String AGENT = "agent-erased";

    private final AtomicLong nextEvent = new AtomicLong();
    private final long stride;

    private ErasureBench(long stride) {
        this.stride = stride;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--small", "--agent-events", "--ingest", "--segment-bytes",
                "--share");
        long events = a.longOption("--events", 20_000);
        long small = a.longOption("--small", 0);
        long agentEvents = a.longOption("--agent-events", 10_000);
        long ingest = a.longOption("--ingest", Math.max(20_000, events / 10));
        long segmentBytes = a.longOption("--segment-bytes", 0);
        String share = a.option("--share", null);
        Path work = Files.createTempDirectory("trailproof-erasure-bench");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        List<String> extra = new ArrayList<>();
        StringBuilder settings = new StringBuilder();
        if (segmentBytes > 0) {
            settings.append("log.segment-bytes=").append(segmentBytes).append('\n');
        }
        if (share != null) {
            settings.append("erasure.share-while-ingesting=").append(share).append('\n');
        }
        if (!settings.isEmpty()) {
            Path config = work.resolve("bench.properties");
            Files.writeString(config, settings);
            extra.addAll(List.of("--config", config.toString()));
        }
        System.out.printf(Locale.ROOT, "erasure benchmark: logs of %s events, %,d of them on %s, ingest windows of %,d events%s%s%n",
                small > 0 ? String.format(Locale.ROOT, "%,d and %,d", small, events) : String.format(Locale.ROOT, "%,d", events),
                agentEvents, AGENT, ingest, segmentBytes > 0 ? ", segments of " + segmentBytes + " bytes" : "",
                share != null ? ", erasure.share-while-ingesting=" + share : "");
        Map<String, String> rows = new LinkedHashMap<>();
        for (long size : small > 0 ? new long[] {small, events} : new long[] {events}) {
            long onAgent = Math.min(agentEvents, size / 2);
            ErasureBench b = new ErasureBench(onAgent > 0 ? Math.max(2, size / onAgent) : 0);
            Path data = work.resolve("data-" + size);
            try (ServerUnderTest s = ServerUnderTest.start(a.dist(), data, opts, extra.toArray(String[]::new))) {
                String id = b.fill(s.port, size);
                ServerProbe.awaitQuiet(s.pid());
                String log = String.format(Locale.ROOT, "log of %,d events (%d segments)", size, segments(data).size());
                Timed one = erase(s.port, data, "{\"event_ids\":[\"" + id + "\"],\"reason\":\"bench\"}");
                rows.put("one event, " + log, one.line());
                ServerProbe.awaitQuiet(s.pid());
                if (agentEvents > 0) {
                    Timed agent = erase(s.port, data, "{\"agent_id\":\"" + AGENT + "\",\"reason\":\"bench\"}");
                    rows.put(String.format(Locale.ROOT, "one agent (%,d events), %s", agent.erased, log), agent.line());
                }
                if (size == events && ingest > 0) {
                    ServerProbe.awaitQuiet(s.pid());
                    b.ingestDuringErasures(s, data, ingest, rows);
                }
            }
        }
        System.out.println();
        rows.forEach((k, v) -> System.out.printf(Locale.ROOT, "%-62s %s%n", k, v));
        deleteTree(work);
    }

    /**
     * Ingests {@code size} sample events in batches (every {@link #stride}th on {@link #AGENT}, the
     * others on 100 agents) with one event posted alone in the middle; returns its id.
     */
    private String fill(int port, long size) throws Exception {
        long t0 = System.nanoTime();
        ingest(port, size / 2);
        String id;
        try (PlainHttp http = new PlainHttp(port)) {
            PlainHttp.Response r = http.post("/v1/events", SampleEvents.event(nextEvent.getAndIncrement(), "needle")
                    .getBytes(StandardCharsets.UTF_8));
            if (r.status() != 201) {
                throw new IllegalStateException("POST /v1/events answered " + r.status() + ": " + r.text());
            }
            id = JSON.readTree(r.body()).get("id").asText();
        }
        ingest(port, size - size / 2 - 1);
        System.out.printf(Locale.ROOT, "  ingested %,d events in %.1f s%n", size, (System.nanoTime() - t0) / 1e9);
        return id;
    }

    private void ingest(int port, long events) throws Exception {
        long full = events / BATCH;
        ClosedLoopClients.run(port, CLIENTS, full, http -> post(http, BATCH));
        if (events % BATCH > 0) {
            try (PlainHttp http = new PlainHttp(port)) {
                post(http, (int) (events % BATCH));
            }
        }
    }

    private void post(PlainHttp http, int n) throws IOException {
        long first = nextEvent.getAndAdd(n);
        StringBuilder b = new StringBuilder(n * 560).append('[');
        for (long i = first; i < first + n; i++) {
            b.append(i == first ? "" : ",").append(SampleEvents.event(i, stride > 0 && i % stride == 0 ? AGENT : "agent-" + (i % 100)));
        }
        PlainHttp.Response r = http.post("/v1/batch", b.append(']').toString().getBytes(StandardCharsets.UTF_8), "");
        if (r.status() != 201) {
            throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
        }
    }

    private record Timed(double seconds, long erased, int rewritten, long indexBytes) {
        String line() {
            return String.format(Locale.ROOT, "%8.2f s  %,7d erased  %3d segments rewritten  index %,.1f MB", seconds,
                    erased, rewritten, indexBytes / 1e6);
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
        return new Timed(seconds, answer.get("erased").asLong(), rewritten, bytes(data.resolve("index")));
    }

    /**
     * Ingest windows of {@code events} alone and with erasures of whole agents running back to back,
     * alternated 0 1 1 0; the ratio of the rates.
     */
    private void ingestDuringErasures(ServerUnderTest s, Path data, long events, Map<String, String> rows)
            throws Exception {
        double[] seconds = new double[2];
        long[] sent = new long[2];
        AtomicInteger erasures = new AtomicInteger();
        AtomicInteger agent = new AtomicInteger(10);
        for (int kind : new int[] {0, 1, 1, 0}) {
            AtomicBoolean running = new AtomicBoolean(kind == 1);
            Thread eraser = new Thread(() -> {
                while (running.get()) {
                    try {
                        erase(s.port, data, "{\"agent_id\":\"agent-" + agent.getAndIncrement() + "\",\"reason\":\"bench\"}");
                        erasures.incrementAndGet();
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
        rows.put(String.format(Locale.ROOT, "ingest during erasures (%d erasures of one agent)", erasures.get()),
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

    /** Bytes of the regular files under {@code dir} (files a merge deletes meanwhile are skipped). */
    private static long bytes(Path dir) throws IOException {
        long[] total = {0};
        try (Stream<Path> all = Files.walk(dir)) {
            all.forEach(p -> {
                try {
                    if (Files.isRegularFile(p)) {
                        total[0] += Files.size(p);
                    }
                } catch (IOException gone) {
                    // merged away while walking
                }
            });
        }
        return total[0];
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
