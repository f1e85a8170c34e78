package io.trailproof.bench;

import io.trailproof.cli.Main;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The backup figures, in one run against one packaged server:
 *
 * <ul>
 *   <li><b>throughput</b>: {@code GET /v1/admin/backup} streamed to a file, in MB/s of archive, by
 *       curl and by our own client ({@code trailproof backup -o}: in this JVM, warm, and as a command
 *       with its JVM start), beside a plain copy ({@code Files.copy}) of the same segment files to the
 *       same disk and the same copy forced to disk, in rotating rounds; goal: the backup at least 0.5
 *       of the copy. The first backup of the server (which digests the whole log before it answers)
 *       is timed apart from a later one;</li>
 *   <li><b>the ingest pause it causes</b>: one client posting batches of 10 events one after another
 *       and recording every request's latency while backups run back to back, beside the same client
 *       with nothing else running and with plain copies of the same files running (alternating);
 *       goal: no request longer than 50 ms during a backup.</li>
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

    private static final Path CURL = Files.isExecutable(Path.of("/usr/bin/curl")) ? Path.of("/usr/bin/curl") : null;

    /**
     * Where the pause measurement's backups go: what the server does to ingestion is the figure, not
     * what a client writing 50 MB to the same file system does to its fsyncs (see src/site/performance.md).
     */
    private static final Path DEV_NULL = Path.of("/dev/null");

    private final AtomicLong nextEvent = new AtomicLong();

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events");
        Path dist = a.dist();
        long events = a.longOption("--events", 400_000);
        Path work = Files.createTempDirectory("trailproof-backup-bench");
        Path data = work.resolve("data");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        BackupBench b = new BackupBench();
        try (ServerUnderTest s = ServerUnderTest.start(dist, data, opts)) {
            b.ingest(s.port, events);
            ServerProbe.awaitQuiet(s.pid());
            HttpClient http = HttpClient.newHttpClient();
            // The first backup of a server digests every captured prefix before it answers (the
            // manifest with the SHA-256s comes first); later ones digest only what was appended since.
            // Both fetched to /dev/null, so the difference is that pass.
            long f0 = System.nanoTime();
            b.backup(http, s.port, DEV_NULL);
            double firstSeconds = (System.nanoTime() - f0) / 1e9;
            long l0 = System.nanoTime();
            b.backup(http, s.port, DEV_NULL);
            double laterSeconds = (System.nanoTime() - l0) / 1e9;
            // warm-up of each kind (the in-process client's JIT included)
            long archiveBytes = b.backup(http, s.port, work.resolve("warm.tar"));
            long copiedBytes = copy(data, work.resolve("warm-copy"), false);
            cliInProcess(s.port, work.resolve("warm-cli.tar"));
            cliCommand(dist, s.port, work.resolve("warm-cmd.tar"));

            // Throughput: a plain copy, the copy forced to disk as the client forces its file, curl,
            // and our own client in process (JVM warm) and as the command an operator runs (JVM start
            // included), all in the same run, in rotating order (0 1 2 3 4 4 3 2 1 0 ...).
            String[] kinds = {
                "plain copy of the segment files (Files.copy)",
                "plain copy, then fsync of each file",
                "GET /v1/admin/backup to a file (" + (CURL != null ? "curl" : "JDK HttpClient") + ")",
                "`trailproof backup -o` in process (JVM warm; checks every SHA-256; fsync)",
                "`trailproof backup -o` as a command (JVM start included)",
            };
            double[] seconds = new double[kinds.length];
            long[] bytes = new long[kinds.length];
            for (int r = 0; r < 2 * kinds.length * 2; r++) {
                int pos = r % (2 * kinds.length);
                int kind = pos < kinds.length ? pos : 2 * kinds.length - 1 - pos;
                long t0 = System.nanoTime();
                bytes[kind] += switch (kind) {
                    case 0 -> copy(data, work.resolve("copy"), false);
                    case 1 -> copy(data, work.resolve("copy"), true);
                    case 2 -> b.backup(http, s.port, work.resolve("b.tar"));
                    case 3 -> cliInProcess(s.port, work.resolve("cli.tar"));
                    default -> cliCommand(dist, s.port, work.resolve("cmd.tar"));
                };
                seconds[kind] += (System.nanoTime() - t0) / 1e9;
                ServerProbe.awaitQuiet(s.pid());
            }
            double[] rate = new double[kinds.length];
            for (int k = 0; k < kinds.length; k++) {
                rate[k] = bytes[k] / 1e6 / seconds[k];
            }
            double copyRate = rate[0];

            // Where the time goes: the client's own ceiling (curl copying the same files from file://
            // to files, no network), and the server's side alone (the backup to /dev/null beside a
            // plain read of the same files), alternated the same way.
            double[] sideSeconds = new double[2];
            long[] sideBytes = new long[2];
            double[] serverSeconds = new double[2];
            long[] serverBytes = new long[2];
            if (CURL != null) {
                AlternatingRounds.run(2, kind -> s.pid(), kind -> {
                    long t0 = System.nanoTime();
                    sideBytes[kind] += kind == 0 ? curlCopy(data, work.resolve("curl-copy")) : b.backup(http, s.port, work.resolve("b.tar"));
                    sideSeconds[kind] += (System.nanoTime() - t0) / 1e9;
                    return 1;
                });
                AlternatingRounds.run(2, kind -> s.pid(), kind -> {
                    long t0 = System.nanoTime();
                    if (kind == 0) {
                        serverBytes[0] += read(data);
                    } else {
                        b.backup(http, s.port, DEV_NULL);
                        serverBytes[1] += archiveBytes;
                    }
                    serverSeconds[kind] += (System.nanoTime() - t0) / 1e9;
                    return 1;
                });
            }

            // The pause: latency of small batches with nothing else running, with backups running,
            // and with plain copies of the same files running (what the machine's disk and cores do to
            // ingestion when 50 MB are read and moved, whoever does it), in the order 0 1 2 2 1 0.
            List<List<Long>> latencies = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            double backupSeconds = seconds[2] / 4;   // each kind ran 4 rounds
            long windowMillis = Math.max(3000, (long) (backupSeconds * 1000));
            for (int kind : new int[] {0, 1, 2, 2, 1, 0}) {
                Load load = switch (kind) {
                    case 1 -> () -> b.backup(http, s.port, DEV_NULL);
                    case 2 -> () -> copy(data, work.resolve("pause-copy"), false);
                    default -> null;
                };
                latencies.get(kind).addAll(b.smallBatches(s.port, load, windowMillis));
                ServerProbe.awaitQuiet(s.pid());
            }
            List<Long> without = latencies.get(0);
            List<Long> during = latencies.get(1);
            List<Long> copying = latencies.get(2);
            System.out.printf(Locale.ROOT, "%n| figure | value | goal |%n|---|---|---|%n");
            System.out.printf(Locale.ROOT, "| log | %,d events, %,.1f MB of segments, tar %,.1f MB | |%n", events,
                    copiedBytes / 1e6, archiveBytes / 1e6);
            System.out.printf(Locale.ROOT, "| first backup, to /dev/null (digest pass over the whole log included) | %.2f s, %,.0f MB/s | |%n",
                    firstSeconds, archiveBytes / 1e6 / firstSeconds);
            System.out.printf(Locale.ROOT, "| a later backup, to /dev/null (nothing appended: no digest pass) | %.2f s, %,.0f MB/s | |%n",
                    laterSeconds, archiveBytes / 1e6 / laterSeconds);
            for (int k = 0; k < kinds.length; k++) {
                System.out.printf(Locale.ROOT, "| %s | %,.0f MB/s%s | %s |%n", kinds[k], rate[k],
                        k == 0 ? "" : String.format(Locale.ROOT, ", %.2f of the copy", rate[k] / copyRate),
                        k >= 2 ? ">= 0.5" : "");
            }
            if (CURL != null) {
                double curlRate = sideBytes[0] / 1e6 / sideSeconds[0];
                double backupAgain = sideBytes[1] / 1e6 / sideSeconds[1];
                double readRate = serverBytes[0] / 1e6 / serverSeconds[0];
                double nullRate = serverBytes[1] / 1e6 / serverSeconds[1];
                System.out.printf(Locale.ROOT, "| curl copying the same files file:// to files (no network: the client's ceiling) | %,.0f MB/s | |%n", curlRate);
                System.out.printf(Locale.ROOT, "| backup to a file (curl), same rounds / curl's own copy | %,.0f MB/s, %.2f | |%n",
                        backupAgain, backupAgain / curlRate);
                System.out.printf(Locale.ROOT, "| reading the segment files (to nowhere) | %,.0f MB/s | |%n", readRate);
                System.out.printf(Locale.ROOT, "| backup to /dev/null (curl), same rounds / the read | %,.0f MB/s, %.2f | |%n",
                        nullRate, nullRate / readRate);
            }
            System.out.printf(Locale.ROOT, "| batch of %d, no backup running: p50 / p99 / max | %s (%d requests) | |%n",
                    SMALL_BATCH, percentiles(without), without.size());
            System.out.printf(Locale.ROOT, "| batch of %d, backup running: p50 / p99 / max | %s (%d requests) | max <= 50 ms |%n",
                    SMALL_BATCH, percentiles(during), during.size());
            System.out.printf(Locale.ROOT, "| batch of %d, plain copy running: p50 / p99 / max | %s (%d requests) | |%n",
                    SMALL_BATCH, percentiles(copying), copying.size());
        } finally {
            deleteTree(work);
        }
    }

    /**
     * The backup, streamed to {@code file} by curl (a neutral client, as an operator's script would
     * fetch it) when there is one, else by the JDK's client; returns its bytes.
     */
    private long backup(HttpClient http, int port, Path file) throws IOException, InterruptedException {
        if (CURL != null) {
            Process p = new ProcessBuilder(CURL.toString(), "-sS", "--fail", "-o", file.toString(),
                    "http://127.0.0.1:" + port + "/v1/admin/backup").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException("curl failed: " + out);
            }
            if (file.equals(DEV_NULL)) {
                return 0;
            }
            long n = Files.size(file);
            Files.delete(file);
            return n;
        }
        HttpResponse<Path> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/admin/backup"))
                .build(), HttpResponse.BodyHandlers.ofFile(file));
        if (r.statusCode() != 200) {
            throw new IllegalStateException("backup answered " + r.statusCode() + ": " + Files.readString(file));
        }
        if (file.equals(DEV_NULL)) {
            return 0;
        }
        long n = Files.size(file);
        Files.delete(file);
        return n;
    }

    /**
     * Our own backup client in this JVM ({@code io.trailproof.cli.Main.run}, so its JIT is warm after
     * the first call), its file deleted after; returns the file's bytes.
     */
    private static long cliInProcess(int port, Path file) throws IOException {
        PrintStream out = System.out;
        int rc;
        try {
            System.setOut(new PrintStream(OutputStream.nullOutputStream()));
            rc = Main.run("backup", "-o", file.toString(), "--server", "http://127.0.0.1:" + port);
        } finally {
            System.setOut(out);
        }
        if (rc != 0) {
            throw new IllegalStateException("trailproof backup exited " + rc);
        }
        long n = Files.size(file);
        Files.delete(file);
        return n;
    }

    /** {@code bin/trailproof backup -o FILE} of the distribution, a process of its own; returns the file's bytes. */
    private static long cliCommand(Path dist, int port, Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(dist.resolve("bin/trailproof").toString(), "backup", "-o", file.toString(),
                "--server", "http://127.0.0.1:" + port).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("trailproof backup failed: " + out);
        }
        long n = Files.size(file);
        Files.delete(file);
        return n;
    }

    /** The segment files (log and timestamps), in name order. */
    private static List<Path> segments(Path data) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String sub : new String[] {"log", "timestamps"}) {
            Path from = data.resolve(sub);
            if (Files.isDirectory(from)) {
                try (var files = Files.list(from)) {
                    files.filter(f -> f.getFileName().toString().endsWith(".seg")).sorted().forEach(out::add);
                }
            }
        }
        return out;
    }

    /** curl copying every segment file from file:// to a file under {@code to}: what curl itself costs. */
    private static long curlCopy(Path data, Path to) throws IOException, InterruptedException {
        Files.createDirectories(to);
        long total = 0;
        for (Path f : segments(data)) {
            Path dest = to.resolve(f.getFileName());
            Process p = new ProcessBuilder(CURL.toString(), "-sS", "-o", dest.toString(), f.toUri().toString())
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("curl could not copy " + f);
            }
            total += Files.size(dest);
            Files.delete(dest);
        }
        return total;
    }

    /** Reads every segment file to nowhere: the server's disk side alone. */
    private static long read(Path data) throws IOException {
        long total = 0;
        for (Path f : segments(data)) {
            try (var in = Files.newInputStream(f)) {
                total += in.transferTo(OutputStream.nullOutputStream());
            }
        }
        return total;
    }

    /**
     * A plain copy of every segment file (log and timestamps) to {@code to}, each forced to disk after
     * when {@code force} (as the backup client forces its file); returns the bytes copied.
     */
    private static long copy(Path data, Path to, boolean force) throws IOException {
        long total = 0;
        for (String sub : new String[] {"log", "timestamps"}) {
            Path from = data.resolve(sub);
            if (!Files.isDirectory(from)) {
                continue;
            }
            Path dest = Files.createDirectories(to.resolve(sub));
            try (Stream<Path> files = Files.list(from)) {
                for (Path f : files.filter(f -> f.toString().endsWith(".seg")).toList()) {
                    Path d = dest.resolve(f.getFileName());
                    Files.copy(f, d, StandardCopyOption.REPLACE_EXISTING);
                    if (force) {
                        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.WRITE)) {
                            ch.force(true);
                        }
                    }
                    total += Files.size(f);
                }
            }
        }
        deleteTree(to);
        return total;
    }

    /** Work run back to back beside the small batches. */
    @FunctionalInterface
    private interface Load {
        long run() throws Exception;
    }

    /**
     * One client posting batches of {@link #SMALL_BATCH} one after another for {@code millis}, with
     * {@code load} (when not null) running back to back meanwhile; returns each request's latency in
     * microseconds.
     */
    private List<Long> smallBatches(int port, Load load, long millis) throws Exception {
        List<Long> latencies = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        long end = System.nanoTime() + millis * 1_000_000L;
        // The load runs back to back for the whole window (at least once), so the window is as long
        // as the one without and every request in it overlaps the load.
        CompletableFuture<Void> running = load == null ? null : CompletableFuture.runAsync(() -> {
            try {
                do {
                    load.run();
                } while (System.nanoTime() < end);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                done.set(true);
            }
        });
        try (PlainHttp client = new PlainHttp(port)) {
            while (running != null ? !done.get() : System.nanoTime() < end) {
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
        if (running != null) {
            running.join();
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
        return ClosedLoopClients.ingestBatches(port, CLIENTS, events, BATCH, nextEvent);
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
