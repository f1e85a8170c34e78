package io.trailproof.index;

import java.util.Map;
import java.util.TreeMap;

/**
 * Log positions of records the service writes for itself in the background (the trail of who looked,
 * src/site/sign-in.md#durability-and-cost), which no list or search waits for: nobody was told they are
 * stored when a read starts, so read after write (src/site/search.md#read-after-write) does not cover
 * them. A read waits for every event durable when it started up to the last one that is not such a
 * record ({@link #readTarget}). These records are made searchable when a search that reads the
 * trail of who looked asks for them (at once after a quiet spell, at most once a second while they
 * keep coming), and by the follower after each commit: so such a search sees every record indexed a
 * second before it started, without any read waiting for them, and a search of an agent never
 * refreshes the index for them.
 *
 * <p>Held as ranges of positions, forgotten once searchable; safe for concurrent use. The positions
 * are told once the write returns, a moment after the log's size grew: a read that started in that
 * moment waits until they are told (reads waiting for the index look again then), never for the
 * index to hold them; and no read ever misses an event it must see.
 */
public final class BackgroundRecords {

    /** Start to end (exclusive) of each run of such positions not yet known to be searchable. */
    private final TreeMap<Long, Long> ranges = new TreeMap<>();
    private final Runnable told;

    /** {@code told} runs after each {@link #add}, outside any lock: reads waiting for these records may go on. */
    BackgroundRecords(Runnable told) {
        this.told = told;
    }

    /** Notes that the records at {@code logIndexes} are the service's own (once they are in the log). */
    public void add(long... logIndexes) {
        synchronized (this) {
            for (long logIndex : logIndexes) {
                addOne(logIndex);
            }
        }
        told.run();
    }

    private void addOne(long logIndex) {
        Map.Entry<Long, Long> before = ranges.floorEntry(logIndex);
        if (before != null && before.getValue() > logIndex) {
            return; // known already
        }
        long start = logIndex;
        long end = logIndex + 1;
        if (before != null && before.getValue() == logIndex) {
            start = before.getKey();
        }
        Long after = ranges.get(end);
        if (after != null) {
            ranges.remove(end);
            end = after;
        }
        ranges.put(start, end);
    }

    /**
     * The number of log entries a read that starts when the log holds {@code readableSize} waits for:
     * {@code readableSize} less the run of the service's own records at its end.
     */
    public synchronized long readTarget(long readableSize) {
        long target = readableSize;
        Map.Entry<Long, Long> last = ranges.lowerEntry(target);
        while (last != null && last.getValue() >= target && last.getKey() < target) {
            target = last.getKey();
            last = ranges.lowerEntry(target);
        }
        return target;
    }

    /** The first known record not yet searchable, {@link Long#MAX_VALUE} when there is none. */
    synchronized long start() {
        return ranges.isEmpty() ? Long.MAX_VALUE : ranges.firstKey();
    }

    /** The end (exclusive) of the last known record not yet searchable, 0 when there is none. */
    synchronized long end() {
        return ranges.isEmpty() ? 0 : ranges.lastEntry().getValue();
    }

    /** Forgets the records below {@code searchable}: searches see them. */
    synchronized void searchableUpTo(long searchable) {
        while (!ranges.isEmpty() && ranges.firstKey() < searchable) {
            Map.Entry<Long, Long> first = ranges.pollFirstEntry();
            if (first.getValue() > searchable) {
                ranges.put(searchable, first.getValue());
                return;
            }
        }
    }
}
