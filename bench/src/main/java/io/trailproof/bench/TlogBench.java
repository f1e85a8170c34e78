package io.trailproof.bench;

import io.trailproof.core.note.NoteSigner;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TilePath;
import io.trailproof.core.note.TlogCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Signed checkpoints, tiles and tlog-proofs against the packaged server: level-0 tiles and
 * entry bundles per second and p99, tlog-proof p99 (goal at most 5 ms at 1,000,000 events), and in
 * process the cost of signing (and verifying) one checkpoint.
 *
 * <p>Usage: {@code TlogBench [DIST] [--events N] [--requests R]} (defaults 1,000,000 and 5,000). Requests are
 * sequential from one client (closed loop, one connection), after the server has signed a checkpoint
 * covering every event. Take figures on a quiet machine.
 */
public final class TlogBench {

    private TlogBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--requests");
        Path dist = a.dist();
        long events = a.longOption("--events", 1_000_000);
        int requests = a.intOption("--requests", 5000);
        Table table = new Table();
        signing(table);
        Path data = Files.createTempDirectory("trailproof-tlog-bench");
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, "-Xmx1g")) {
            LoadGenerator g = new LoadGenerator(dist, events);
            g.port = server.port;
            g.batchIngest(4, 1000, events, 0);
            awaitCheckpoint(g, events);
            // Measured on a server that has finished with the ingest: the index still being built
            // from it, or the verification after it, would otherwise be the tail of every figure.
            g.awaitSearchable();
            ServerProbe.awaitQuiet(server.pid());
            Random r = new Random(7);
            long fullTiles = events / TilePath.FULL_WIDTH;
            measure(table, g, "GET /tile/0/<N> (full)", requests,
                    i -> "/tile/0/" + TilePath.encodeIndex(Math.floorMod(r.nextLong(), fullTiles)));
            measure(table, g, "GET /tile/entries/<N> (full)", requests,
                    i -> "/tile/entries/" + TilePath.encodeIndex(Math.floorMod(r.nextLong(), fullTiles)));
            List<String> ids = g.sampleIds();
            measure(table, g, "GET /v1/merkle/proof?format=tlog-proof", requests,
                    i -> "/v1/merkle/proof?event_id=" + ids.get(r.nextInt(ids.size())) + "&format=tlog-proof");
            server.stop();
        } finally {
            LoadGenerator.deleteTree(data);
        }
        System.out.println(table.render(LoadGenerator.machine()));
    }

    private static void measure(Table table, LoadGenerator g, String name, int requests, LoadGenerator.PathFor path)
            throws Exception {
        long t0 = System.nanoTime();
        double[] p = g.latency(name, requests, path);
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (p == null) {
            throw new IllegalStateException(name + ": no such endpoint in this build");
        }
        table.add(name + " requests/s (1 client)", (requests + Math.min(200, requests)) / seconds, "/s", "", true, 0, "");
        table.add(name + " p50", p[0], "ms", "", true, 0, "");
        boolean proof = name.contains("tlog-proof");
        table.add(name + " p99", p[1], "ms", proof ? "<= 5" : "", !proof || p[1] <= 5, 0, "");
    }

    private static void awaitCheckpoint(LoadGenerator g, long size) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < deadline) {
            PlainHttp.Response r = g.get("/checkpoint");
            if (r.status() == 200 && r.text().split("\n")[1].equals(Long.toString(size))) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no checkpoint of size " + size);
    }

    /** Mean and p99 of signing one checkpoint (and of verifying it), in process, after a warm-up. */
    private static void signing(Table table) throws Exception {
        byte[] seed = new byte[32];
        new Random(1).nextBytes(seed);
        NoteSigner signer = NoteSigner.of("bench.example/log", seed);
        NoteVerifier verifier = signer.verifier();
        byte[] root = new byte[32];
        int n = 5000;
        long[] sign = new long[n];
        long[] verify = new long[n];
        for (int round = 0; round < 2; round++) { // the first round warms up
            for (int i = 0; i < n; i++) {
                root[0] = (byte) i;
                String text = TlogCheckpoint.of(signer.name(), 1_000_000L + i, root).text();
                long s = System.nanoTime();
                SignedNote note = signer.sign(new SignedNote(text, List.of()));
                long m = System.nanoTime();
                boolean ok = verifier.verify(text, note.signatures().get(0).signature());
                verify[i] = System.nanoTime() - m;
                sign[i] = m - s;
                if (!ok) {
                    throw new IllegalStateException("signature did not verify");
                }
            }
        }
        Arrays.sort(sign);
        Arrays.sort(verify);
        table.add("checkpoint signing mean", Arrays.stream(sign).average().orElse(0) / 1e3, "us", "", true, 0, "");
        table.add("checkpoint signing p99", LoadGenerator.pct(sign, 0.99) * 1e3, "us", "", true, 0, "");
        table.add("checkpoint verification mean", Arrays.stream(verify).average().orElse(0) / 1e3, "us", "", true, 0, "");
    }
}
