package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The cost of one snapshot at a given log length, and the time to open the ledger (a snapshot
 * should cost what changed since the previous one, not the whole log). Uses the ledger's public
 * API only, so the same main runs against any build:
 *
 * <ol>
 *   <li>fills a temporary data directory with N events (1,000 agents, batches of 10,000, automatic
 *       snapshots off) and closes it (the first snapshot covers all N);</li>
 *   <li>three rounds of: open (timed: the start), append 10,000 more events, close (timed: the final
 *       snapshot of 10,000 new events on top of N, plus forcing the tree);</li>
 *   <li>the heap the open ledger holds (used heap after collections, open minus closed).</li>
 * </ol>
 *
 * <pre>java -Xmx2g -cp ... io.trailproof.bench.HeadSnapshotBench [--events N] [--data DIR]</pre>
 *
 * The data directory is deleted at the end.
 */
public final class HeadSnapshotBench {

    private static final int AGENTS = 1000;
    private static final int BATCH = 10_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    private HeadSnapshotBench() {
    }

    public static void main(String[] args) throws Exception {
        BenchArgs opts = BenchArgs.parseOptions(args, "--events", "--data");
        long events = opts.longOption("--events", 1_000_000);
        Path data = opts.pathOption("--data", null);
        if (data == null) {
            data = Files.createTempDirectory("trailproof-head-snapshot-bench");
        }
        LedgerOptions options = new LedgerOptions(64L << 20, Long.MAX_VALUE);
        try {
            long t0 = System.nanoTime();
            long next = 0;
            try (Ledger ledger = Ledger.open(data, options, Clock.systemUTC(), new SecureRandom())) {
                while (next < events) {
                    int n = (int) Math.min(BATCH, events - next);
                    ledger.append(batch(next, n));
                    next += n;
                }
            }
            System.out.printf("filled %,d events and wrote the first snapshot in %.1f s%n", events,
                    (System.nanoTime() - t0) / 1e9);
            ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
            double[] open = new double[3];
            double[] openCpu = new double[3];
            double[] close = new double[3];
            double[] closeCpu = new double[3];
            for (int round = 0; round < 3; round++) {
                long a = System.nanoTime();
                long ac = cpu.getCurrentThreadCpuTime();
                Ledger ledger = Ledger.open(data, options, Clock.systemUTC(), new SecureRandom());
                long b = System.nanoTime();
                long bc = cpu.getCurrentThreadCpuTime();
                ledger.append(batch(next, BATCH));
                next += BATCH;
                long c = System.nanoTime();
                long cc = cpu.getCurrentThreadCpuTime();
                ledger.close();
                long d = System.nanoTime();
                long dc = cpu.getCurrentThreadCpuTime();
                open[round] = (b - a) / 1e6;
                openCpu[round] = (bc - ac) / 1e6;
                close[round] = (d - c) / 1e6;
                closeCpu[round] = (dc - cc) / 1e6;
                System.out.printf("round %d at %,d events: open %.0f ms (cpu %.0f ms), snapshot of %,d new events "
                        + "(close) %.1f ms (cpu %.1f ms), snapshot file %s bytes%n", round + 1, next, open[round],
                        openCpu[round], BATCH, close[round], closeCpu[round], snapshotBytes(data));
            }
            Arrays.sort(open);
            Arrays.sort(openCpu);
            Arrays.sort(close);
            Arrays.sort(closeCpu);
            System.out.printf("median: open %.0f ms (cpu %.0f ms), snapshot %.1f ms (cpu %.1f ms)%n", open[1],
                    openCpu[1], close[1], closeCpu[1]);
            // The heap an open ledger holds for its events (position tables, resident tree levels, chains):
            // measured after collections, with nothing else of the benchmark alive.
            long before = usedAfterGc();
            try (Ledger ledger = Ledger.open(data, options, Clock.systemUTC(), new SecureRandom())) {
                long held = usedAfterGc() - before;
                System.out.printf("heap held by the open ledger at %,d events: %.1f MB (%.1f bytes per event)%n",
                        ledger.size(), held / 1e6, (double) held / ledger.size());
            }
        } finally {
            deleteTree(data);
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    /**
     * The snapshot file's size ({@code head-snapshot}, or {@code checkpoint} in builds before that
     * name), and the position journal's where the build has one.
     */
    private static String snapshotBytes(Path data) throws IOException {
        Path journal = data.resolve("positions");
        Path snapshot = data.resolve("head-snapshot");
        return String.format("%,d", Files.size(Files.exists(snapshot) ? snapshot : data.resolve("checkpoint")))
                + (Files.exists(journal) ? String.format(" + journal %,d", Files.size(journal)) : "");
    }

    private static List<ObjectNode> batch(long first, int n) throws Exception {
        List<ObjectNode> batch = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long k = first + i;
            ObjectNode e = JSON.createObjectNode()
                    .put("agent_id", "agent-" + (k % AGENTS))
                    .put("action_type", "TOOL_CALL")
                    .put("action_name", "step_" + (k % 97));
            batch.add(EventValidator.validate(e));
        }
        return batch;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
