package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.KeyedAnswer;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * What remembered {@code Idempotency-Key}s cost at start and in heap: two ledgers of N single events,
 * one with a key on every event (N keys, the worst case: one record per event), one without; each
 * opened three times (median wall and CPU), and the heap the open ledger holds.
 *
 * <pre>java -Xmx2g -cp ... io.trailproof.bench.IdempotencyStartBench [--events N]</pre>
 */
public final class IdempotencyStartBench {

    private static final ObjectMapper JSON = new ObjectMapper();

    private IdempotencyStartBench() {
    }

    public static void main(String[] args) throws Exception {
        long events = BenchArgs.parseOptions(args, "--events").longOption("--events", 1_000_000);
        LedgerOptions options = new LedgerOptions(64L << 20, Long.MAX_VALUE);
        for (boolean keyed : new boolean[] {false, true}) {
            Path data = Files.createTempDirectory("trailproof-idem-start");
            try {
                fill(data, options, events, keyed);
                ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
                double[] wall = new double[3];
                double[] cpuMs = new double[3];
                for (int round = 0; round < 3; round++) {
                    long a = System.nanoTime();
                    long ac = cpu.getCurrentThreadCpuTime();
                    try (Ledger ledger = Ledger.open(data, options, Clock.systemUTC(), new SecureRandom())) {
                        wall[round] = (System.nanoTime() - a) / 1e6;
                        cpuMs[round] = (cpu.getCurrentThreadCpuTime() - ac) / 1e6;
                    }
                }
                Arrays.sort(wall);
                Arrays.sort(cpuMs);
                long before = usedAfterGc();
                try (Ledger ledger = Ledger.open(data, options, Clock.systemUTC(), new SecureRandom())) {
                    long held = usedAfterGc() - before;
                    System.out.printf("%,d events %s: open median %.0f ms (cpu %.0f ms), %,d keys, heap held %.1f MB%n",
                            events, keyed ? "each with a key" : "without keys", wall[1], cpuMs[1],
                            ledger.dedupe().table().size(), held / 1e6);
                }
            } finally {
                try (Stream<Path> files = Files.walk(data)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private static void fill(Path data, LedgerOptions options, long events, boolean keyed) throws Exception {
        try (Ledger ledger = Ledger.open(data, options, Clock.systemUTC(), new SecureRandom())) {
            List<CompletableFuture<AppendOutcome>> pending = new ArrayList<>();
            for (long i = 0; i < events; i++) {
                ObjectNode e = (ObjectNode) JSON.readTree(SampleEvents.event(i, "agent-" + (i % 100)));
                if (keyed) {
                    DedupeKey key = DedupeKey.of(DedupeRecord.IDEMPOTENCY_KEY, "", "/v1/events", "key-" + i);
                    DedupeTable.Lookup l = ledger.dedupe().claim(key, DedupeKey.contentDigest(ByteBuffer.allocate(8).putLong(i).array()));
                    KeyedAnswer r = new KeyedAnswer(((DedupeTable.Fresh) l).claim(),
                            o -> ByteBuffer.allocate(11).put((byte) 'E').putShort((short) 201)
                                    .putLong(o.get(0).event().logIndex()).array());
                    pending.add(ledger.appendAsync(e, r));
                } else {
                    pending.add(ledger.appendAsync(e));
                }
                if (pending.size() == 4096) {
                    for (CompletableFuture<AppendOutcome> f : pending) {
                        f.get();
                    }
                    pending.clear();
                }
            }
            for (CompletableFuture<AppendOutcome> f : pending) {
                f.get();
            }
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
