package io.trailproof.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Issue 17's backup figures, in one run against one packaged server:
 *
 * <ul>
 *   <li><b>throughput</b>: {@code GET /v1/admin/backup} streamed to a file, in MB/s of archive,
 *       beside a plain copy ({@code Files.copy}) of the same segment files to the same disk, in
 *       alternating rounds (A B B A); goal: the backup at least 0.5 of the copy;</li>
 *   <li><b>the ingest pause it causes</b>: one client posting batches of 10 events one after another
 *       and recording every request's latency, for the length of a backup, beside the same client
 *       with no backup running (alternating); goal: no request longer than 50 ms during a backup.</li>
 * </ul>
 * Both read the log from the page cache (it was just written): the figures compare the backup's own
 * work (digest pass, tar, HTTP) with a copy's, not the disk.
 *
 * <pre>
 *   bench/run-backup [--events N]      (default 400,000 events of about 500 bytes: about 230 MB of log)
 * </pre>
 */
public final class BackupBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;
    private static final int SMALL_BATCH = 10;

    private final AtomicLong nextEvent = new AtomicLong();

    public static void main(String[] args) throws Exception {
        Path dist = Path.of(args.length > 0 ? args[0] : "target/trailproof");
        long events = 400_000;
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--events")) {
                events = Long.parseLong(args[++i]);
            }
        }
        Path work = Files.createTempDirectory("trailproof-backup-bench");
        Path data = work.resolve("data");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        BackupBench b = new BackupBench();
        try (ServerUnderTest s = ServerUnderTest.start(dist, data, opts)) {
            b.ingest(s.port, events);
            ServerProbe.awaitQuiet(s.pid());
            HttpClient http = HttpClient.newHttpClient();
            // warm-up of both
            long archiveBytes = b.backup(http, s.port, work.resolve("warm.tar"));
            long copiedBytes = copy(data, work.resolve("warm-copy"));

            double[] seconds = new double[2];
            long[] bytes = new long[2];
            AlternatingRounds.run(2, kind -> s.pid(), kind -> {
                long t0 = System.nanoTime();
                bytes[kind] += kind == 0 ? copy(data, work.resolve("copy")) : b.backup(http, s.port, work.resolve("b.tar"));
                seconds[kind] += (System.nanoTime() - t0) / 1e9;
                return 1;
            });
            double copyRate = bytes[0] / 1e6 / seconds[0];
            double backupRate = bytes[1] / 1e6 / seconds[1];

            // The pause: latency of small batches with and without a backup running, alternating.
            List<Long> without = new ArrayList<>();
            List<Long> during = new ArrayList<>();
            double backupSeconds = seconds[1] / 4;
            long windowMillis = Math.max(1000, (long) (backupSeconds * 1000));
            for (int round = 0; round < 4; round++) {
                boolean withBackup = round == 1 || round == 2;
                (withBackup ? during : without).addAll(b.smallBatches(s.port, withBackup ? http : null, windowMillis,
                        work.resolve("pause.tar")));
                ServerProbe.awaitQuiet(s.pid());
            }
            System.out.printf(Locale.ROOT, "%n| figure | value | goal |%n|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| log | %,d events, %,.1f MB of segments, tar %,.1f MB | |%n", events,
                    copiedBytes / 1e6, archiveBytes / 1e6);
            System.out.printf(Locale.ROOT, "| plain copy of the segment files (Files.copy) | %,.0f MB/s | |%n", copyRate);
            System.out.printf(Locale.ROOT, "| GET /v1/admin/backup to a file | %,.0f MB/s | |%n", backupRate);
            System.out.printf(Locale.ROOT, "| backup / copy | %.2f | >= 0.5 |%n", backupRate / copyRate);
            System.out.printf(Locale.ROOT, "| batch of %d, no backup running: p50 / p99 / max | %s (%d requests) | |%n",
                    SMALL_BATCH, percentiles(without), without.size());
            System.out.printf(Locale.ROOT, "| batch of %d, backup running: p50 / p99 / max | %s (%d requests) | max <= 50 ms |%n",
                    SMALL_BATCH, percentiles(during), during.size());
        } finally {
            deleteTree(work);
        }
    }

    /** The backup, streamed to {@code file}; returns its bytes. */
    private long backup(HttpClient http, int port, Path file) throws IOException, InterruptedException {
        HttpResponse<Path> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/admin/backup"))
                .build(), HttpResponse.BodyHandlers.ofFile(file));
        if (r.statusCode() != 200) {
            throw new IllegalStateException("backup answered " + r.statusCode() + ": " + Files.readString(file));
        }
        long n = Files.size(file);
        Files.delete(file);
        return n;
    }

    /** A plain copy of every segment file (log and timestamps) to {@code to}; returns the bytes copied. */
    private static long copy(Path data, Path to) throws IOException {
        long total = 0;
        for (String sub : new String[] {"log", "timestamps"}) {
            Path from = data.resolve(sub);
            if (!Files.isDirectory(from)) {
                continue;
            }
            Path dest = Files.createDirectories(to.resolve(sub));
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".seg")).toList()) {
                    Files.copy(f, dest.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    total += Files.size(f);
                }
            }
        }
        deleteTree(to);
        return total;
    }

    /**
     * One client posting batches of {@link #SMALL_BATCH} one after another for {@code millis} (or,
     * with a backup, for as long as a backup runs); returns each request's latency in microseconds.
     */
    private List<Long> smallBatches(int port, HttpClient backupClient, long millis, Path tar) throws Exception {
        List<Long> latencies = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Void> backup = backupClient == null ? null : CompletableFuture.runAsync(() -> {
            try {
                backup(backupClient, port, tar);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                done.set(true);
            }
        });
        long end = System.nanoTime() + millis * 1_000_000L;
        try (PlainHttp client = new PlainHttp(port)) {
            while (backup != null ? !done.get() : System.nanoTime() < end) {
                long first = nextEvent.getAndAdd(SMALL_BATCH);
                StringBuilder body = new StringBuilder("[");
                for (int i = 0; i < SMALL_BATCH; i++) {
                    body.append(i == 0 ? "" : ",").append(SampleEvents.event(first + i, "agent-" + ((first + i) % 100)));
                }
                long t0 = System.nanoTime();
                PlainHttp.Response r = client.post("/v1/batch", body.append(']').toString().getBytes(StandardCharsets.UTF_8));
                latencies.add((System.nanoTime() - t0) / 1000);
                if (r.status() != 201) {
                    throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
                }
            }
        }
        if (backup != null) {
            backup.join();
        }
        return latencies;
    }

    private static String percentiles(List<Long> micros) {
        long[] a = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        if (a.length == 0) {
            return "none";
        }
        return String.format(Locale.ROOT, "%.1f / %.1f / %.1f ms", a[a.length / 2] / 1e3,
                a[Math.min(a.length - 1, (int) Math.ceil(a.length * 0.99) - 1)] / 1e3, a[a.length - 1] / 1e3);
    }

    private long ingest(int port, long events) throws Exception {
        long batches = Math.max(1, events / BATCH);
        ClosedLoopClients.run(port, CLIENTS, batches, http -> {
            long first = nextEvent.getAndAdd(BATCH);
            StringBuilder b = new StringBuilder(BATCH * 560).append('[');
            for (int i = 0; i < BATCH; i++) {
                b.append(i == 0 ? "" : ",").append(SampleEvents.event(first + i, "agent-" + ((first + i) % 100)));
            }
            PlainHttp.Response r = http.post("/v1/batch", b.append(']').toString().getBytes(StandardCharsets.UTF_8), "");
            if (r.status() != 201) {
                throw new IllegalStateException("batch answered " + r.status() + ": " + r.text());
            }
        });
        return batches * BATCH;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
