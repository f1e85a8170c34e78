package io.trailproof.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.index.LuceneEventIndex;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Indexing alone: the stored bytes of N sample events (about 500 bytes each, {@link SampleEvents})
 * added to a fresh Lucene index in the follower's batches of 2,000, then committed, several times in
 * one JVM. No log, no HTTP, no polling: what an index layout costs to build. Besides events/s it
 * prints the process CPU time per event (all threads, GC and JIT included), which other work on a
 * shared machine disturbs far less than elapsed time. Run it against two builds alternately to
 * compare layouts.
 *
 * <p>Usage: {@code IndexingBench [--events N] [--repetitions R] [--free-text-floor]} (defaults 200,000 and
 * 5; the first repetition is a warm-up and not counted). With {@code --free-text-floor} it measures
 * instead the least Lucene can cost for the documented search: only the five free-text fields
 * ({@code action_name}, {@code error_message}, {@code input}, {@code output}, {@code metadata}) as
 * Lucene's own {@code TextField}s with its {@code StandardAnalyzer}, their text extracted before the
 * clock starts, the same RAM buffer: no keyword field, label, facet, point, doc value, id or hash,
 * none of which the contract lets the service drop.
 */
public final class IndexingBench {

    private static final int BATCH = 2_000;

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parseOptions(args, List.of("--events", "--repetitions"), Set.of("--free-text-floor"));
        int events = a.intOption("--events", 200_000);
        int reps = a.intOption("--repetitions", 5);
        boolean floor = a.flag("--free-text-floor");
        ObjectMapper json = new ObjectMapper();
        List<byte[]> payloads = new ArrayList<>(events);
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < events; i++) {
            var fields = EventValidator.validate(json.readTree(SampleEvents.event(i, "agent-" + (i % 1000))));
            payloads.add(StoredEvent.seal(fields, UUID.randomUUID().toString(),
                    EventTime.formatRecordedAt(base.plusMillis(i)), 1 + i / 1000, EventFields.GENESIS_PREV_HASH, i).payload());
        }
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        double[] rates = new double[reps - 1];
        double[] cpu = new double[reps - 1];
        for (int r = 0; r < reps; r++) {
            Path dir = Files.createTempDirectory("trailproof-indexing-bench");
            long t = System.nanoTime();
            long c = os.getProcessCpuTime();
            long bytes;
            try (LuceneEventIndex index = floor ? null : LuceneEventIndex.open(dir)) {
                if (floor) {
                    // The extraction is not timed: the floor is the inverting and writing alone.
                    List<String[]> texts = freeTexts(json, payloads);
                    t = System.nanoTime();
                    c = os.getProcessCpuTime();
                    freeTextOnly(dir, texts);
                } else {
                    for (int from = 0; from < events; from += BATCH) {
                        index.addPayloads(payloads.subList(from, Math.min(events, from + BATCH)));
                    }
                    index.commit();
                }
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
                    for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
        Arrays.sort(rates);
        Arrays.sort(cpu);
        System.out.printf((floor ? "free-text floor" : "indexing") + " median: %,.0f events/s, CPU %.1f µs/event (of %d repetitions)%n", rates[rates.length / 2],
                cpu[cpu.length / 2], rates.length);
    }

    private static final String[] FREE_TEXT = {EventFields.ACTION_NAME, EventFields.ERROR_MESSAGE, EventFields.ACTION_INPUT,
            EventFields.ACTION_OUTPUT, EventFields.METADATA};

    /** Per event, the text of each free-text field (null when absent): every scalar inside, in order. */
    private static List<String[]> freeTexts(ObjectMapper json, List<byte[]> payloads) throws Exception {
        List<String[]> all = new ArrayList<>(payloads.size());
        for (byte[] payload : payloads) {
            JsonNode event = json.readTree(payload);
            String[] texts = new String[FREE_TEXT.length];
            for (int i = 0; i < FREE_TEXT.length; i++) {
                JsonNode v = event.get(FREE_TEXT[i]);
                if (v != null && !v.isNull()) {
                    StringBuilder b = new StringBuilder();
                    scalars(v, b);
                    texts[i] = b.toString();
                }
            }
            all.add(texts);
        }
        return all;
    }

    private static void scalars(JsonNode node, StringBuilder out) {
        if (node.isContainerNode()) {
            node.forEach(child -> scalars(child, out));
        } else if (!node.isNull()) {
            out.append(out.isEmpty() ? "" : "\n").append(node.asText());
        }
    }

    /** The floor: the free-text fields alone, with Lucene's defaults but the service's 128 MB RAM buffer. */
    private static void freeTextOnly(Path dir, List<String[]> texts) throws Exception {
        IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setRAMBufferSizeMB(128);
        try (FSDirectory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, config)) {
            for (String[] event : texts) {
                Document doc = new Document();
                for (int i = 0; i < FREE_TEXT.length; i++) {
                    if (event[i] != null) {
                        doc.add(new TextField(FREE_TEXT[i], event[i], Field.Store.NO));
                    }
                }
                w.addDocument(doc);
            }
            w.commit();
        }
    }
}
