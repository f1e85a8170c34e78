package io.trailproof.ledger;

import java.io.IOException;
import java.util.Arrays;

/**
 * A set of log indexes held as ascending, disjoint, non-adjacent ranges {@code [first, last]}: an
 * erasure's targets (src/site/erasure.md). Its memory grows with the number of ranges, never with the
 * number of indexes, so a retention pass over millions of consecutive events holds a few numbers;
 * the indexes themselves are visited in bounded chunks ({@link #forEachChunk}). Immutable.
 */
public final class LogRanges {

    /** No index. */
    public static final LogRanges EMPTY = new Builder().build();

    private final long[] firsts;
    private final long[] lasts;
    private final int ranges;
    private final long count;

    private LogRanges(long[] firsts, long[] lasts, int ranges, long count) {
        this.firsts = firsts;
        this.lasts = lasts;
        this.ranges = ranges;
        this.count = count;
    }

    /** The distinct indexes of {@code indexes}, in any order and with repeats. */
    public static LogRanges of(long[] indexes) {
        long[] sorted = indexes.clone();
        Arrays.sort(sorted);
        Builder b = new Builder();
        for (int k = 0; k < sorted.length; k++) {
            if (k == 0 || sorted[k] != sorted[k - 1]) {
                b.add(sorted[k]);
            }
        }
        return b.build();
    }

    /** How many indexes. */
    public long count() {
        return count;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** How many ranges. */
    public int rangeCount() {
        return ranges;
    }

    /** The first index of range {@code r}. */
    public long first(int r) {
        return firsts[r];
    }

    /** The last index (inclusive) of range {@code r}. */
    public long last(int r) {
        return lasts[r];
    }

    /** Receives the indexes a chunk at a time. */
    @FunctionalInterface
    public interface ChunkVisitor {
        /** {@code indexes[0..n)}, ascending; the array is reused for the next chunk. */
        void chunk(long[] indexes, int n) throws IOException;
    }

    /** Visits every index, ascending, in chunks of at most {@code max}. */
    public void forEachChunk(int max, ChunkVisitor visitor) throws IOException {
        long[] chunk = new long[(int) Math.max(1, Math.min(max, count))];
        int n = 0;
        for (int r = 0; r < ranges; r++) {
            for (long i = firsts[r]; i <= lasts[r]; i++) {
                chunk[n++] = i;
                if (n == chunk.length) {
                    visitor.chunk(chunk, n);
                    n = 0;
                }
            }
        }
        if (n > 0) {
            visitor.chunk(chunk, n);
        }
    }

    /** The indexes as an array (for small sets only: its size is the count). */
    public long[] toArray() {
        long[] out = new long[Math.toIntExact(count)];
        int n = 0;
        for (int r = 0; r < ranges; r++) {
            for (long i = firsts[r]; i <= lasts[r]; i++) {
                out[n++] = i;
            }
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogRanges other && ranges == other.ranges
                && Arrays.equals(firsts, 0, ranges, other.firsts, 0, other.ranges)
                && Arrays.equals(lasts, 0, ranges, other.lasts, 0, other.ranges);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(count) * 31 + ranges;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("[");
        for (int r = 0; r < ranges; r++) {
            s.append(r == 0 ? "" : ", ").append('[').append(firsts[r]).append(", ").append(lasts[r]).append(']');
        }
        return s.append(']').toString();
    }

    /** Builds a set from indexes or ranges given in ascending order. */
    public static final class Builder {
        private long[] firsts = new long[4];
        private long[] lasts = new long[4];
        private int ranges;
        private long count;

        /** Adds {@code index}, which must be above every index added before. */
        public Builder add(long index) {
            return addRange(index, index);
        }

        /** Adds {@code [first, last]}, which must lie above every index added before. */
        public Builder addRange(long first, long last) {
            if (first < 0 || last < first) {
                throw new IllegalArgumentException("not a range of log indexes: [" + first + ", " + last + "]");
            }
            if (ranges > 0 && first <= lasts[ranges - 1]) {
                throw new IllegalArgumentException("log index " + first + " is not above " + lasts[ranges - 1]);
            }
            count += last - first + 1;
            if (ranges > 0 && first == lasts[ranges - 1] + 1) {
                lasts[ranges - 1] = last;
                return this;
            }
            if (ranges == firsts.length) {
                firsts = Arrays.copyOf(firsts, ranges * 2);
                lasts = Arrays.copyOf(lasts, ranges * 2);
            }
            firsts[ranges] = first;
            lasts[ranges] = last;
            ranges++;
            return this;
        }

        public LogRanges build() {
            return new LogRanges(Arrays.copyOf(firsts, ranges), Arrays.copyOf(lasts, ranges), ranges, count);
        }
    }
}
