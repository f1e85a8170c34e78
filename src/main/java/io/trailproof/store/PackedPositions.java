package io.trailproof.store;

import java.util.Arrays;

/**
 * A growing list of strictly ascending non-negative longs (an agent's log indexes, a segment's frame
 * offsets) held in blocks of {@value #BLOCK} entries: each full block keeps its first entry as a long
 * and the gaps to the next entries as LEB128 varints in a byte array of its own, so an entry costs
 * about one byte per 7 bits of its gap (two bytes for gaps under 16,384) instead of 8, with no
 * growth slack; the block being filled stays plain. Reading entry {@code i} decodes at most
 * {@value #BLOCK} - 1 gaps; a range is decoded in one pass.
 *
 * <p>Not thread-safe: the owner guards it, or builds it completely before it publishes it (then
 * any number of readers may read it without a lock, as nothing changes any more).
 */
public final class PackedPositions {

    static final int BLOCK_BITS = 6;
    static final int BLOCK = 1 << BLOCK_BITS;
    private static final int BLOCK_MASK = BLOCK - 1;
    private static final byte[][] NO_BLOCKS = new byte[0][];
    private static final long[] NO_LONGS = new long[0];

    /** Gaps of entries 1..BLOCK-1 of each full block, varint-encoded. */
    private byte[][] blocks = NO_BLOCKS;
    /** The first entry of each full block. */
    private long[] firsts = NO_LONGS;
    private int full;
    /** The entries of the block being filled, plain; grows to {@value #BLOCK}. */
    private long[] open = new long[2];
    private int openCount;
    private long last = -1;

    /** The entries {@code from[offset .. offset + n)}, strictly ascending. */
    public static PackedPositions of(long[] from, int offset, int n) {
        PackedPositions p = new PackedPositions();
        p.addAll(from, offset, n);
        return p;
    }

    public int size() {
        return (full << BLOCK_BITS) + openCount;
    }

    /**
     * Appends {@code value}, which must be above the last entry (and not negative).
     *
     * @throws IllegalArgumentException if it is not
     */
    public void add(long value) {
        if (value <= last) {
            throw new IllegalArgumentException("position " + value + " after " + (last < 0 ? "none" : last)
                    + ": positions ascend strictly and are not negative");
        }
        if (openCount == open.length) {
            open = Arrays.copyOf(open, Math.min(BLOCK, open.length * 2));
        }
        open[openCount++] = value;
        last = value;
        if (openCount == BLOCK) {
            seal();
        }
    }

    /** Appends {@code from[offset .. offset + n)}, each as {@link #add}. */
    public void addAll(long[] from, int offset, int n) {
        for (int i = 0; i < n; i++) {
            add(from[offset + i]);
        }
    }

    /** The last entry; the list must not be empty. */
    public long last() {
        if (last < 0) {
            throw new IndexOutOfBoundsException("no positions");
        }
        return last;
    }

    /** The entry at {@code i}. */
    public long get(int i) {
        if (i < 0 || i >= size()) {
            throw new IndexOutOfBoundsException("position " + i + " of " + size());
        }
        int b = i >>> BLOCK_BITS;
        int k = i & BLOCK_MASK;
        if (b == full) {
            return open[k];
        }
        byte[] gaps = blocks[b];
        long v = firsts[b];
        int at = 0;
        for (int j = 0; j < k; j++) {
            long gap = 0;
            int shift = 0;
            byte x;
            do {
                x = gaps[at++];
                gap |= (long) (x & 0x7f) << shift;
                shift += 7;
            } while (x < 0);
            v += gap;
        }
        return v;
    }

    /** The entries {@code [from, to)} in a new array. */
    public long[] toArray(int from, int to) {
        if (from < 0 || from > to || to > size()) {
            throw new IndexOutOfBoundsException("positions " + from + ".." + to + " of " + size());
        }
        long[] out = new long[to - from];
        int i = from;
        while (i < to) {
            int b = i >>> BLOCK_BITS;
            int k = i & BLOCK_MASK;
            int end = Math.min(to, (b + 1) << BLOCK_BITS);
            if (b == full) {
                System.arraycopy(open, k, out, i - from, end - i);
                break;
            }
            byte[] gaps = blocks[b];
            long v = firsts[b];
            int at = 0;
            for (int j = 0; j < end - (b << BLOCK_BITS); j++) {
                if (j > 0) {
                    long gap = 0;
                    int shift = 0;
                    byte x;
                    do {
                        x = gaps[at++];
                        gap |= (long) (x & 0x7f) << shift;
                        shift += 7;
                    } while (x < 0);
                    v += gap;
                }
                if (j >= k) {
                    out[(b << BLOCK_BITS) + j - from] = v;
                }
            }
            i = end;
        }
        return out;
    }

    /** How many entries are below {@code bound}. */
    public int countBelow(long bound) {
        int n = size();
        if (n == 0 || last < bound) {
            return n;
        }
        if (openCount > 0 && open[0] < bound) {
            return (full << BLOCK_BITS) + ascendingBelow(open, openCount, bound);
        }
        int b = ascendingBelow(firsts, full, bound) - 1;  // the last full block starting below the bound
        if (b < 0) {
            return 0;
        }
        int lo = b << BLOCK_BITS;
        int hi = Math.min(n, lo + BLOCK);
        long[] block = toArray(lo, hi);
        return lo + ascendingBelow(block, block.length, bound);
    }

    /** Entries of the list in heap, an estimate: for tests and figures. */
    long heapBytes() {
        long bytes = 16L + 16 + 8L * firsts.length + 16 + 4L * blocks.length + 16 + 8L * open.length;
        for (int b = 0; b < full; b++) {
            bytes += 16 + ((blocks[b].length + 7) & ~7);
        }
        return bytes;
    }

    private static int ascendingBelow(long[] a, int n, long bound) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < bound) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The open block is full: encode it, and start the next one small (most lists stay short). */
    private void seal() {
        int bytes = 0;
        for (int j = 1; j < BLOCK; j++) {
            bytes += varintLength(open[j] - open[j - 1]);
        }
        byte[] gaps = new byte[bytes];
        int at = 0;
        for (int j = 1; j < BLOCK; j++) {
            long gap = open[j] - open[j - 1];
            while ((gap & ~0x7fL) != 0) {
                gaps[at++] = (byte) ((gap & 0x7f) | 0x80);
                gap >>>= 7;
            }
            gaps[at++] = (byte) gap;
        }
        if (full == blocks.length) {
            int grown = Math.max(4, full + (full >> 1));
            blocks = Arrays.copyOf(blocks, grown);
            firsts = Arrays.copyOf(firsts, grown);
        }
        blocks[full] = gaps;
        firsts[full] = open[0];
        full++;
        openCount = 0;
    }

    private static int varintLength(long v) {
        return Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 6) / 7);
    }
}
