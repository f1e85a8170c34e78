package io.trailproof.core.merkle;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A naive, literal transcription of RFC 9162 2.1 (MTH, PATH, PROOF) over leaf values, written
 * independently of the production code (its own hashing, no shared constants) so that the two can
 * check each other. O(n) per call; test use only.
 */
public final class Reference {
    private Reference() {}

    public static byte[] mth(List<byte[]> d) {
        int n = d.size();
        if (n == 0) {
            return sha256(new byte[0]);
        }
        if (n == 1) {
            return sha256(concat(new byte[] {0}, d.get(0)));
        }
        int k = split(n);
        return sha256(concat(new byte[] {1}, mth(d.subList(0, k)), mth(d.subList(k, n))));
    }

    static List<byte[]> path(int m, List<byte[]> d) {
        int n = d.size();
        List<byte[]> out = new ArrayList<>();
        if (n <= 1) {
            return out;
        }
        int k = split(n);
        if (m < k) {
            out.addAll(path(m, d.subList(0, k)));
            out.add(mth(d.subList(k, n)));
        } else {
            out.addAll(path(m - k, d.subList(k, n)));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    static List<byte[]> proof(int m, List<byte[]> d) {
        if (m == 0) {
            return new ArrayList<>();
        }
        return subproof(m, d, true);
    }

    private static List<byte[]> subproof(int m, List<byte[]> d, boolean b) {
        int n = d.size();
        List<byte[]> out = new ArrayList<>();
        if (m == n) {
            if (!b) {
                out.add(mth(d));
            }
            return out;
        }
        int k = split(n);
        if (m <= k) {
            out.addAll(subproof(m, d.subList(0, k), b));
            out.add(mth(d.subList(k, n)));
        } else {
            out.addAll(subproof(m - k, d.subList(k, n), false));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    /**
     * What an inclusion verifier does with each path element for leaf m of n, bottom-up: 'L' when
     * the element is hashed on the left, 'R' on the right. Two (m, n) with equal shapes are
     * indistinguishable to any correct verifier.
     */
    static String pathShape(long m, long n) {
        if (n <= 1) {
            return "";
        }
        long k = Long.highestOneBit(n - 1);
        return m < k ? pathShape(m, k) + "R" : pathShape(m - k, n - k) + "L";
    }

    /**
     * The consistency analogue of {@link #pathShape}: 'K' when the old root is known to the
     * verifier (not in the proof) or 'S' when the proof starts with the seed, then per element 'L'
     * (left sibling of both old and new) or 'R' (right sibling of the new tree only).
     */
    static String consistencyShape(long m, long n) {
        return subShape(m, n, true);
    }

    private static String subShape(long m, long n, boolean b) {
        if (m == n) {
            return b ? "K" : "S";
        }
        long k = Long.highestOneBit(n - 1);
        return m <= k ? subShape(m, k, b) + "R" : subShape(m - k, n - k, false) + "L";
    }

    public static List<byte[]> randomLeaves(Random random, int count) {
        List<byte[]> leaves = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            byte[] leaf = new byte[32];
            random.nextBytes(leaf);
            leaves.add(leaf);
        }
        return leaves;
    }

    public static List<byte[]> leafHashes(List<byte[]> leaves) {
        List<byte[]> out = new ArrayList<>(leaves.size());
        for (byte[] leaf : leaves) {
            out.add(mth(List.of(leaf)));
        }
        return out;
    }

    private static int split(int n) {
        int k = 1;
        while (k * 2 < n) {
            k *= 2;
        }
        return k;
    }

    private static byte[] concat(byte[]... parts) {
        int len = 0;
        for (byte[] p : parts) {
            len += p.length;
        }
        byte[] out = new byte[len];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
