package io.trailproof.core.capture;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A set of 128-bit keys, or a map of them to a long, in flat arrays (open addressing, linear
 * probing, deletion by backward shift): 16 bytes a slot for a set, 24 for a map, no object per
 * entry. The key (0, 0) is never stored (callers map it elsewhere). Grows by half when three
 * quarters full. Not thread-safe.
 */
final class KeyTable {

    private static final int MIN_CAPACITY = 16;

    private final boolean withValues;
    private long[] k1;
    private long[] k2;
    private long[] values;
    private int size;

    KeyTable(boolean withValues) {
        this.withValues = withValues;
        allocate(MIN_CAPACITY);
    }

    private void allocate(int capacity) {
        k1 = new long[capacity];
        k2 = new long[capacity];
        values = withValues ? new long[capacity] : null;
        size = 0;
    }

    int size() {
        return size;
    }

    private int home(long a, long b) {
        long h = a ^ (b * 0x9E3779B97F4A7C15L);
        return (int) ((((h >>> 32) ^ h) & 0xFFFFFFFFL) * k1.length >>> 32);
    }

    /** The slot holding the key, or -1. */
    int find(long a, long b) {
        int n = k1.length;
        for (int i = home(a, b); ; i = i + 1 == n ? 0 : i + 1) {
            if (k1[i] == a && k2[i] == b) {
                return i;
            }
            if (k1[i] == 0 && k2[i] == 0) {
                return -1;
            }
        }
    }

    boolean contains(long a, long b) {
        return find(a, b) >= 0;
    }

    long value(int slot) {
        return values[slot];
    }

    /** Adds the key or replaces its value. */
    void put(long a, long b, long value) {
        int n = k1.length;
        for (int i = home(a, b); ; i = i + 1 == n ? 0 : i + 1) {
            if (k1[i] == a && k2[i] == b) {
                if (withValues) {
                    values[i] = value;
                }
                return;
            }
            if (k1[i] == 0 && k2[i] == 0) {
                k1[i] = a;
                k2[i] = b;
                if (withValues) {
                    values[i] = value;
                }
                if (++size * 4L > n * 3L) {
                    grow();
                }
                return;
            }
        }
    }

    /** Removes the key when present. */
    void remove(long a, long b) {
        int i = find(a, b);
        if (i < 0) {
            return;
        }
        int n = k1.length;
        // Backward shift: move later members of the probe run into the hole where their home allows.
        int hole = i;
        for (int j = i + 1 == n ? 0 : i + 1; k1[j] != 0 || k2[j] != 0; j = j + 1 == n ? 0 : j + 1) {
            int h = home(k1[j], k2[j]);
            boolean movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
            if (movable) {
                k1[hole] = k1[j];
                k2[hole] = k2[j];
                if (withValues) {
                    values[hole] = values[j];
                }
                hole = j;
            }
        }
        k1[hole] = 0;
        k2[hole] = 0;
        size--;
    }

    private void grow() {
        long[] o1 = k1;
        long[] o2 = k2;
        long[] ov = values;
        allocate(o1.length + (o1.length >> 1));
        for (int i = 0; i < o1.length; i++) {
            if (o1[i] != 0 || o2[i] != 0) {
                put(o1[i], o2[i], ov == null ? 0 : ov[i]);
            }
        }
    }

    void write(DataOutputStream out) throws IOException {
        out.writeInt(size);
        for (int i = 0; i < k1.length; i++) {
            if (k1[i] != 0 || k2[i] != 0) {
                out.writeLong(k1[i]);
                out.writeLong(k2[i]);
                if (withValues) {
                    out.writeLong(values[i]);
                }
            }
        }
    }

    void read(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("a negative count in a capture state snapshot");
        }
        int capacity = MIN_CAPACITY;
        while (capacity * 3L < n * 4L + 4) {
            capacity += capacity >> 1;
        }
        allocate(capacity);
        for (int i = 0; i < n; i++) {
            long a = in.readLong();
            long b = in.readLong();
            put(a, b, withValues ? in.readLong() : 0);
        }
    }
}
