package io.trailproof.core.merkle;

import java.util.ArrayList;
import java.util.List;

/**
 * The RFC 9162 root of a sequence of leaves read once, in order, keeping only the roots of the
 * perfect subtrees not yet completed (at most log2(n) hashes). For recomputing a root from the log
 * itself, without trusting the stored node files. Not thread-safe.
 */
public final class StreamingRoot {
    // Perfect-subtree roots, largest (leftmost) first; sizes are strictly decreasing powers of two.
    private final List<byte[]> hashes = new ArrayList<>();
    private final List<Long> sizes = new ArrayList<>();
    private long size;

    /** Adds the next RFC 9162 leaf hash (32 bytes). */
    public void add(byte[] leafHash) {
        if (!Rfc9162.isHash(leafHash)) {
            throw new IllegalArgumentException("leaf hash must be " + Rfc9162.HASH_LENGTH + " bytes");
        }
        byte[] hash = leafHash.clone();
        long width = 1;
        while (!sizes.isEmpty() && sizes.get(sizes.size() - 1) == width) {
            int last = sizes.size() - 1;
            hash = Rfc9162.nodeHash(hashes.remove(last), hash);
            sizes.remove(last);
            width <<= 1;
        }
        hashes.add(hash);
        sizes.add(width);
        size++;
    }

    /** Number of leaves added. */
    public long size() {
        return size;
    }

    /**
     * MTH over the leaves added so far: the perfect subtrees folded from the right, which is the
     * RFC 9162 split at the largest power of two below n applied recursively.
     */
    public byte[] root() {
        if (hashes.isEmpty()) {
            return Rfc9162.emptyRoot();
        }
        byte[] root = hashes.get(hashes.size() - 1);
        for (int i = hashes.size() - 2; i >= 0; i--) {
            root = Rfc9162.nodeHash(hashes.get(i), root);
        }
        return root.clone();
    }
}
