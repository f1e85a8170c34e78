package io.trailproof.store;

import java.util.Arrays;

/**
 * Payload index to file offset of its frame, in pages of {@value #PAGE_ENTRIES} entries: growing
 * allocates one page and copies only the page directory, and there is no fixed ceiling below
 * 2^45 entries.
 *
 * <p>Only the segment being written needs it: pages below the segment being written when the log
 * was opened are never allocated ({@link #startAt}), and once the writer seals a segment, the
 * segment keeps its own offsets (packed) and the pages wholly below the next one are let go
 * ({@link #releaseBelow}), so the table holds about one segment's entries (8 bytes each), not the log's.
 *
 * <p>One writer, many readers. The writer calls {@link #reserve} <em>before</em> it writes a group
 * to disk (so running out of memory refuses the group instead of failing after it is on disk),
 * then {@link #set}, then publishes the new size through a volatile write elsewhere; readers read
 * that size first and then only entries below it.
 */
final class PositionTable {
    static final int PAGE_BITS = 14;
    static final int PAGE_ENTRIES = 1 << PAGE_BITS;
    private static final int PAGE_MASK = PAGE_ENTRIES - 1;
    private static final long MAX_ENTRIES = (long) (Integer.MAX_VALUE - 8) << PAGE_BITS;

    private volatile long[][] pages = new long[4][];
    private long capacity;

    /**
     * Makes room for the entries below {@code end}.
     *
     * @throws IllegalStateException if {@code end} is beyond what any table can index (2^45)
     * @throws OutOfMemoryError if the heap cannot hold another page; nothing is changed then
     */
    void reserve(long end) {
        if (end <= capacity) {
            return;
        }
        if (end > MAX_ENTRIES) {
            throw new IllegalStateException("the log's position table cannot index " + end + " payloads");
        }
        long[][] dir = pages;
        int needPages = (int) ((end + PAGE_MASK) >>> PAGE_BITS);
        if (needPages > dir.length) {
            dir = Arrays.copyOf(dir, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needPages, dir.length * 2L)));
        }
        for (int p = (int) (capacity >>> PAGE_BITS); p < needPages; p++) {
            dir[p] = new long[PAGE_ENTRIES];
        }
        pages = dir;
        capacity = (long) needPages << PAGE_BITS;
    }

    /**
     * Makes the table hold entries from {@code first} on only (the segment being written; sealed
     * segments keep their offsets themselves, {@link Segment}): no page below it is allocated, and
     * none of those entries may be read. Only on an empty table.
     */
    void startAt(long first) {
        if (capacity != 0) {
            throw new IllegalStateException("the position table already holds entries");
        }
        if (first > MAX_ENTRIES) {
            throw new IllegalStateException("the log's position table cannot index " + first + " payloads");
        }
        int skipped = (int) (first >>> PAGE_BITS);
        if (skipped > pages.length) {
            pages = Arrays.copyOf(pages, skipped);
        }
        capacity = (long) skipped << PAGE_BITS;
    }

    void set(long index, long position) {
        pages[(int) (index >>> PAGE_BITS)][(int) (index & PAGE_MASK)] = position;
    }

    /**
     * The entry at {@code index}, or -1 when its page was let go ({@link #releaseBelow}): the
     * segment that holds it keeps the position itself, set before the page went.
     */
    long get(long index) {
        long[] page = pages[(int) (index >>> PAGE_BITS)];
        return page == null ? -1 : page[(int) (index & PAGE_MASK)];
    }

    /**
     * Lets go of the pages wholly below {@code index}, whose segments keep their own offsets now (the
     * writer only). Publishes a new page directory, so a reader that finds a page gone also sees
     * what the writer did before (the segment's own offsets).
     */
    void releaseBelow(long index) {
        long[][] dir = pages;
        int below = (int) Math.min(dir.length, index >>> PAGE_BITS);
        boolean any = false;
        for (int p = 0; p < below && !any; p++) {
            any = dir[p] != null;
        }
        if (!any) {
            return;
        }
        long[][] copy = dir.clone();
        Arrays.fill(copy, 0, below, null);
        pages = copy;
    }
}
