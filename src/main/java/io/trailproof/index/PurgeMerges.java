package io.trailproof.index;

import io.trailproof.background.Pacer;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.FilterMergePolicy;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.MergePolicy;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.TieredMergePolicy;

import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * How the documents an erasure replaced leave the index's files (src/site/erasure.md#physically-gone).
 * A deleted document stays in its segment's files (terms, stored fields, doc values) until that
 * segment is rewritten without it, so a purge rewrites every segment holding one; its cost is the
 * size of those segments. Two rules keep that cost bounded by what is erased, not by the index:
 *
 * <ul>
 *   <li>natural merges build no segment larger than {@link #MAX_SEGMENT_MB} (Lucene's default, 5 GB,
 *       would let one erased event rewrite most of the index once it has grown);</li>
 *   <li>the purge rewrites each segment that holds a deleted document alone, into one segment of its
 *       live documents, and touches no other ({@link #findForcedDeletesMerges}); Lucene's own choice
 *       would also pack several of them into one larger segment.</li>
 * </ul>
 *
 * The segments are rewritten one after the other, with the purge's {@link Pacer} called between
 * them, so that an erasure can give way to ingestion (src/site/erasure.md#pacing).
 *
 * A segment larger than the bound (built by a version without it) is still purged, alone; it does
 * not grow further.
 */
final class PurgeMerges extends FilterMergePolicy {

    /**
     * Largest segment a natural merge builds, in MB: about 110,000 events of the benchmark's kind,
     * as many as one log segment holds at its default size, so that erasing one event rewrites about
     * as many events' index as it rewrites of the log. A flush writes a segment of at most the
     * writer's RAM buffer's worth ({@link IndexOptions}; a few MB on disk at the default share of a
     * 512 MB heap, about 10 MB at 1 GB), and merges pack those into segments of up to this size. So
     * the largest segment, and with it what erasing one event costs, stays bounded whatever the
     * index's size, while a search, which pays a fixed cost in every segment it reads, and a start,
     * which opens every segment, read about a quarter of the segments a bound of 4 MB left
     * (src/site/performance.md#at-scale).
     */
    static final double MAX_SEGMENT_MB = 16;
    /** Segments below this are merged as if they were this size (Lucene's default is above our bound). */
    static final double FLOOR_SEGMENT_MB = 0.5;
    /** Waits for running merges that carried deletes into their result; more means something is stuck. */
    static final int MAX_WAITS = 10;

    /** Segments the forced-deletes merges chose, and their bytes, since the last {@link #mergeAway}. */
    private int chosen;
    private long chosenBytes;

    PurgeMerges() {
        this(tiered());
    }

    /** Natural merges as {@code natural} chooses them (a test's choice); purges as described above. */
    PurgeMerges(MergePolicy natural) {
        super(natural);
    }

    /** What one purge rewrote, and how often it waited for running merges: for the log line an erasure leaves. */
    record Purged(int segments, long bytes, int waits) {
    }

    private static TieredMergePolicy tiered() {
        TieredMergePolicy p = new TieredMergePolicy();
        p.setMaxMergedSegmentMB(MAX_SEGMENT_MB);
        p.setFloorSegmentMB(FLOOR_SEGMENT_MB);
        return p;
    }

    /** One segment holding a deleted document (none running in a merge), merged alone; null when there is none. */
    @Override
    public synchronized MergeSpecification findForcedDeletesMerges(SegmentInfos infos, MergeContext context)
            throws IOException {
        Set<SegmentCommitInfo> merging = context.getMergingSegments();
        for (SegmentCommitInfo info : infos) {
            if (!merging.contains(info) && context.numDeletesToMerge(info) > 0) {
                MergeSpecification spec = new MergeSpecification();
                spec.add(new MergePolicy.OneMerge(List.of(info)));
                chosen++;
                chosenBytes += info.sizeInBytes();
                return spec;
            }
        }
        return null;
    }

    /**
     * Rewrites every segment that holds a deleted document, one at a time with {@code pacer} called
     * between them, and returns once none does (deletes applied first). A merge that was already
     * running when the documents were deleted (a natural merge after ingestion) is not one
     * {@code forceMergeDeletes} starts or waits for, and it carries the deletes into the segment it
     * writes: so once only such segments are left this waits for the running merges and goes on
     * until no segment holds a deleted document. Not durable: the caller commits.
     *
     * @throws IOException when deleted documents remain after {@link #MAX_WAITS} waits for running
     *     merges (the caller must then not say they are gone), or what the pacer threw
     */
    Purged mergeAway(IndexWriter writer, ConcurrentMergeScheduler merges, Pacer pacer) throws IOException {
        synchronized (this) {
            chosen = 0;
            chosenBytes = 0;
        }
        int waits = 0;
        while (true) {
            int before = chosen();
            writer.forceMergeDeletes(true);   // one segment, or none
            if (!writer.hasDeletions()) {
                break;
            }
            if (chosen() == before) {
                if (++waits >= MAX_WAITS) {
                    throw new IOException("deleted documents are still in the index after " + MAX_WAITS
                            + " waits for running merges");
                }
                merges.sync();
            } else {
                pacer.pace();
            }
        }
        synchronized (this) {
            return new Purged(chosen, chosenBytes, waits);
        }
    }

    private synchronized int chosen() {
        return chosen;
    }
}
