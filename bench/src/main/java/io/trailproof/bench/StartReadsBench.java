package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.DedupeRecord;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.KeyedAnswer;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * What a ledger's start reads when every event carries a key (the worst case for the idempotency
 * keys: one side record per event, as an OTLP export's span marks): {@code fill DIR N} writes N events
 * of 500 agents in batches of 1,000, each with its own key; {@code open DIR} opens the ledger once in
 * this JVM and prints the opening thread's CPU, the open's wall time, the bytes the opening thread
 * read ({@code rchar} of {@code /proc/thread-self/io}: files and class loading alike), and how long
 * after the open began {@code loading} was empty.
 *
 * <pre>java -Xmx512m -cp ... io.trailproof.bench.StartReadsBench fill DIR 2000000
 * java -Xmx512m -cp ... io.trailproof.bench.StartReadsBench open DIR</pre>
 */
public final class StartReadsBench {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] SAME = new byte[32];

    private StartReadsBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        LedgerOptions options = new LedgerOptions(64L << 20, 100_000);
        if (args[0].equals("fill")) {
            fill(dir, options, Long.parseLong(args[2]));
            return;
        }
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long read0 = rchar();
        long cpu0 = cpu.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        try (Ledger ledger = Ledger.open(dir, options, Clock.systemUTC(), new SecureRandom())) {
            long wall = System.nanoTime() - t0;
            long cpuNs = cpu.getCurrentThreadCpuTime() - cpu0;
            long read = rchar() - read0;
            List<String> atOpen = ledger.loading();
            while (!ledger.loading().isEmpty()) {
                Thread.sleep(5);
            }
            long loaded = System.nanoTime() - t0;
            System.out.printf("open: cpu %d ms, wall %d ms, read %,d bytes, loading at open %s, empty after %d ms, "
                            + "%,d events, %,d keys%n", cpuNs / 1_000_000, wall / 1_000_000, read, atOpen,
                    loaded / 1_000_000, ledger.size(), ledger.dedupe().table().size());
        }
    }

    /** Characters read by this thread so far ({@code rchar}). */
    private static long rchar() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/thread-self/io"))) {
            if (line.startsWith("rchar:")) {
                return Long.parseLong(line.substring(6).trim());
            }
        }
        return -1;
    }

    private static void fill(Path dir, LedgerOptions options, long events) throws Exception {
        try (Ledger ledger = Ledger.open(dir, options, Clock.systemUTC(), new SecureRandom())) {
            for (long i = 0; i < events; i += 1000) {
                List<ObjectNode> batch = new ArrayList<>(1000);
                List<KeyedAnswer> answers = new ArrayList<>(1000);
                for (long j = i; j < Math.min(events, i + 1000); j++) {
                    batch.add((ObjectNode) JSON.readTree(SampleEvents.event(j, "agent-" + (j % 500))));
                    DedupeKey key = DedupeKey.of(DedupeRecord.OTLP_SPAN, "", "", "span-" + j);
                    DedupeTable.Lookup l = ledger.dedupe().claimMark(key, SAME);
                    answers.add(new KeyedAnswer(((DedupeTable.Fresh) l).claim(),
                            o -> ByteBuffer.allocate(8).putLong(o.get(0).event().logIndex()).array()));
                }
                ledger.appendEach(batch, answers);
            }
        }
    }
}
