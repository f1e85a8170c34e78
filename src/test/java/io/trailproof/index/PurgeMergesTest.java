package io.trailproof.index;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.background.Pacer;
import io.trailproof.core.event.EventErasure;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.StoredEvent;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.BytesRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An erasure's purge (src/site/erasure.md#physically-gone) leaves no deleted document in the
 * committed index, also when natural merges are running while it deletes: such a merge carries the
 * deletes into the segment it writes, and the purge must wait for it and purge that one too.
 */
class PurgeMergesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int BATCHES = 30;
    private static final int PER_BATCH = 100;

    @TempDir
    Path dir;

    @Test
    void noDeletedDocumentIsLeftThoughNaturalMergesRanDuringThePurge() throws Exception {
        Path path = dir.resolve("index");
        List<StoredEvent> events = events(BATCHES * PER_BATCH);
        TreeMap<Long, byte[]> erased = new TreeMap<>();
        HeldMerge held = new HeldMerge();
        try (LuceneEventIndex index = LuceneEventIndex.open(path, new IndexOptions(1, held::wrap))) {
            for (int b = 0; b < BATCHES; b++) {
                index.add(events.subList(b * PER_BATCH, (b + 1) * PER_BATCH));
                index.commit();   // one segment each, until natural merges start
            }
            assertThat(held.started.await(60, TimeUnit.SECONDS)).as("a natural merge started").isTrue();
            for (StoredEvent e : events) {
                if (e.logIndex() % 7 == 3) {
                    erased.put(e.logIndex(), EventErasure.erase(e.payload(), "erasure-1", e.recordedAt(),
                            EventErasure.ERASABLE));
                }
            }
            // The merge goes on once the purge waits (for it, or for anything else): the documents are
            // deleted by then and the purge is running.
            Thread purging = Thread.currentThread();
            Thread release = new Thread(() -> {
                try {
                    Await.until("the purge waits", Duration.ofSeconds(60), () -> purging.getState() == Thread.State.WAITING
                            || purging.getState() == Thread.State.TIMED_WAITING || purging.getState() == Thread.State.BLOCKED);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    held.release.countDown();
                }
            });
            release.start();
            index.replace(erased, Pacer.unpaced());
            try (DirectoryReader committed = DirectoryReader.open(FSDirectory.open(path))) {
                assertThat(committed.numDeletedDocs()).as("deleted documents in the committed index").isZero();
                assertThat(committed.numDocs()).isEqualTo(events.size());
                assertThat(termsContaining(committed, "erasemark")).isZero();
                assertThat(termsContaining(committed, "keepmark")).isGreaterThanOrEqualTo(events.size() - erased.size());
            }
        }
    }

    /**
     * A paced purge (an erasure giving way to ingestion) merges one segment holding deleted documents
     * at a time, pausing between them, and the follower indexes new events in the pauses: they are
     * all kept, and no deleted document is left.
     */
    @Test
    void aPacedPurgeMergesOneSegmentAtATimeAndKeepsWhatIsAddedInItsPauses() throws Exception {
        int segments = 8;
        PurgeMerges policy = new PurgeMerges(NoMergePolicy.INSTANCE);   // no natural merge takes them first
        ConcurrentMergeScheduler merges = new ConcurrentMergeScheduler();
        Path path = dir.resolve("index");
        try (Directory d = FSDirectory.open(path);
             IndexWriter writer = new IndexWriter(d, new IndexWriterConfig().setMergePolicy(policy)
                     .setMergeScheduler(merges))) {
            int[] next = {0};
            for (int s = 0; s < segments; s++) {
                for (int i = 0; i < PER_BATCH; i++) {
                    writer.addDocument(doc(next[0]++));
                }
                writer.commit();
            }
            writer.deleteDocuments(new Term("kind", "erased"));
            long[] now = {0};
            List<Long> pauses = new ArrayList<>();
            Pacer pacer = new Pacer(0.5, () -> now[0] += Pacer.SLICE_NANOS, nanos -> {
                pauses.add(nanos);
                writer.addDocument(doc(next[0]++));
            });
            PurgeMerges.Purged purged = policy.mergeAway(writer, merges, pacer);
            writer.commit();
            assertThat(purged.segments()).as("segments merged, each alone").isEqualTo(segments);
            assertThat(pauses).as("pauses between them").hasSize(segments - 1);
            try (DirectoryReader committed = DirectoryReader.open(d)) {
                assertThat(committed.numDeletedDocs()).as("deleted documents in the committed index").isZero();
                assertThat(committed.numDocs()).isEqualTo(next[0] - countErased(next[0]));
                assertThat(termsContaining(committed, "erasemark")).isZero();
                assertThat(termsContaining(committed, "keepmark")).isEqualTo(next[0] - countErased(segments * PER_BATCH));
            }
        }
    }

    /** Document {@code n}: erased (deleted before the purge) when {@code n % 7 == 3} and among the first ones. */
    private static Document doc(int n) {
        Document d = new Document();
        boolean erased = n % 7 == 3 && n < 8 * PER_BATCH;
        d.add(new StringField("kind", erased ? "erased" : "kept", Field.Store.NO));
        d.add(new TextField("body", (erased ? "erasemark" : "keepmark") + n, Field.Store.YES));
        return d;
    }

    private static int countErased(int n) {
        int c = 0;
        for (int i = 0; i < Math.min(n, 8 * PER_BATCH); i++) {
            c += i % 7 == 3 ? 1 : 0;
        }
        return c;
    }

    private static int termsContaining(DirectoryReader reader, String marker) throws IOException {
        int found = 0;
        for (LeafReaderContext leaf : reader.leaves()) {
            for (FieldInfo fi : leaf.reader().getFieldInfos()) {
                Terms terms = leaf.reader().terms(fi.name);
                if (terms == null) {
                    continue;
                }
                TermsEnum it = terms.iterator();
                for (BytesRef t = it.next(); t != null; t = it.next()) {
                    if (t.utf8ToString().startsWith(marker)) {
                        found++;
                    }
                }
            }
        }
        return found;
    }

    /** Events whose action input holds one unique word: {@code erasemarkN} for those erased, {@code keepmarkN} for the others. */
    private static List<StoredEvent> events(int n) throws Exception {
        List<StoredEvent> out = new ArrayList<>();
        Instant base = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < n; i++) {
            ObjectNode e = JSON.createObjectNode().put("agent_id", "a").put("action_type", "TOOL_CALL");
            e.putObject("action_input").put("note", (i % 7 == 3 ? "erasemark" : "keepmark") + i);
            ObjectNode fields = EventValidator.validate(e);
            out.add(StoredEvent.seal(fields, UUID.randomUUID().toString(), EventTime.formatRecordedAt(base.plusMillis(i)),
                    i + 1, EventFields.GENESIS_PREV_HASH, i));
        }
        return out;
    }

    /** Holds the first merge to write a file until released. */
    private static final class HeldMerge {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final AtomicBoolean first = new AtomicBoolean(true);

        Directory wrap(Directory in) {
            return new FilterDirectory(in) {
                @Override
                public IndexOutput createOutput(String name, IOContext context) throws IOException {
                    if (context.context() == IOContext.Context.MERGE && first.getAndSet(false)) {
                        started.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new InterruptedIOException("interrupted");
                        }
                    }
                    return super.createOutput(name, context);
                }
            };
        }
    }
}
