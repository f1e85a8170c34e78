package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.index.LuceneEventIndex;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Indexing alone: the stored bytes of N sample events (about 500 bytes each, {@link SampleEvents})
 * added to a fresh Lucene index in the follower's batches of 2,000, then committed, several times in
 * one JVM. No log, no HTTP, no polling: what an index layout costs to build. Besides events/s it
 * prints the process CPU time per event (all threads, GC and JIT included), which other work on a
 * shared machine disturbs far less than elapsed time. Run it against two builds alternately to
 * compare layouts.
 *
 * <p>Usage: {@code IndexingBench [events] [repetitions]} (defaults 200,000 and 5; the first repetition
 * is a warm-up and not counted).
 */
public final class IndexingBench {

    private static final int BATCH = 2_000;

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        ObjectMapper json = new ObjectMapper();
        List<byte[]> payloads = new ArrayList<>(events);
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < events; i++) {
            var fields = EventValidator.validate(json.readTree(SampleEvents.event(i, "agent-" + (i % 1000))));
            payloads.add(StoredEvent.seal(fields, UUID.randomUUID().toString(),
                    EventTime.formatRecordedAt(base.plusMillis(i)), 1 + i / 1000, EventFields.GENESIS_PREV_HASH, i).payload());
        }
        var os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        double[] rates = new double[reps - 1];
        double[] cpu = new double[reps - 1];
        for (int r = 0; r < reps; r++) {
            Path dir = Files.createTempDirectory("trailproof-indexing-bench");
            long t = System.nanoTime();
            long c = os.getProcessCpuTime();
            long bytes;
            try (LuceneEventIndex index = LuceneEventIndex.open(dir)) {
                for (int from = 0; from < events; from += BATCH) {
                    index.addPayloads(payloads.subList(from, Math.min(events, from + BATCH)));
                }
                index.commit();
                double seconds = (System.nanoTime() - t) / 1e9;
                double cpuMicros = (os.getProcessCpuTime() - c) / 1e3 / events;
                if (r > 0) {
                    rates[r - 1] = events / seconds;
                    cpu[r - 1] = cpuMicros;
                }
                try (var s = Files.walk(dir)) {
                    bytes = s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
                }
                System.out.printf("repetition %d%s: %,d events in %.2f s = %,.0f events/s, CPU %.1f µs/event, index %,d KiB%n",
                        r, r == 0 ? " (warm-up)" : "", events, seconds, events / seconds, cpuMicros, bytes >> 10);
            } finally {
                try (var s = Files.walk(dir)) {
                    for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
        Arrays.sort(rates);
        Arrays.sort(cpu);
        System.out.printf("indexing median: %,.0f events/s, CPU %.1f µs/event (of %d repetitions)%n", rates[rates.length / 2],
                cpu[cpu.length / 2], rates.length);
    }
}
