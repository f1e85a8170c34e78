package io.trailproof.core.merkle;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Verification of RFC 9162 inclusion (2.1.3.2) and consistency (2.1.4.2) proofs.
 *
 * <p>Never throws on hostile or malformed input (null, wrong lengths, out-of-range sizes): such a
 * proof is simply not valid. A proof binds leaves and roots, not sizes: for some pairs of sizes the
 * RFC's verification performs the very same hashing, so a proof that is valid for one of them is
 * valid for the other. Callers take sizes from signed tree heads, not from the proof's sender.
 */
public final class MerkleProofs {
    private static final String OK = "";

    private MerkleProofs() {}

    /** True when {@code siblings} proves {@code leafHash} is leaf {@code leafIndex} under {@code root}. */
    public static boolean verifyInclusion(
            byte[] leafHash, long leafIndex, long treeSize, List<byte[]> siblings, byte[] root) {
        return checkInclusion(leafHash, leafIndex, treeSize, siblings, root).valid();
    }

    /** {@link #verifyInclusion} with the computed root and the reason for a failure. */
    public static InclusionCheck checkInclusion(
            byte[] leafHash, long leafIndex, long treeSize, List<byte[]> siblings, byte[] root) {
        byte[] expected = root == null ? null : root.clone();
        if (!Rfc9162.isHash(root)) {
            return new InclusionCheck(false, expected, null, "root is not a 32-byte hash");
        }
        Computed computed = computeInclusionRoot(leafHash, leafIndex, treeSize, siblings);
        if (computed.root == null) {
            return new InclusionCheck(false, expected, null, computed.problem);
        }
        if (!MessageDigest.isEqual(computed.root, root)) {
            return new InclusionCheck(false, expected, computed.root,
                    "proof leads to root " + hex(computed.root) + ", expected " + hex(root));
        }
        return new InclusionCheck(true, expected, computed.root, OK);
    }

    /** The root an inclusion proof leads to, or empty when the proof is malformed for these sizes. */
    public static Optional<byte[]> rootFromInclusion(
            byte[] leafHash, long leafIndex, long treeSize, List<byte[]> siblings) {
        return Optional.ofNullable(computeInclusionRoot(leafHash, leafIndex, treeSize, siblings).root);
    }

    /**
     * True when {@code proof} shows the tree of {@code n} leaves with root {@code rootN} extends the
     * tree of {@code m} leaves with root {@code rootM}. For {@code m == n} the proof must be empty
     * and the roots equal; for {@code m == 0} it must be empty and {@code rootM} the empty root.
     */
    public static boolean verifyConsistency(long m, long n, byte[] rootM, byte[] rootN, List<byte[]> proof) {
        return checkConsistency(m, n, rootM, rootN, proof).valid();
    }

    /** {@link #verifyConsistency} with the computed roots and the reason for a failure. */
    public static ConsistencyCheck checkConsistency(
            long m, long n, byte[] rootM, byte[] rootN, List<byte[]> proof) {
        if (m < 0 || m > n) {
            return fail("sizes must satisfy 0 <= m <= n, were m=" + m + ", n=" + n);
        }
        if (!Rfc9162.isHash(rootM) || !Rfc9162.isHash(rootN)) {
            return fail("roots must be 32-byte hashes");
        }
        String malformed = malformed(proof);
        if (malformed != null) {
            return fail(malformed);
        }
        if (m == n || m == 0) {
            if (!proof.isEmpty()) {
                return fail("proof must be empty for m=" + m + ", n=" + n);
            }
            byte[] wantOld = m == 0 ? Rfc9162.emptyRoot() : rootN;
            if (!MessageDigest.isEqual(rootM, wantOld)) {
                return new ConsistencyCheck(false, wantOld, rootN.clone(),
                        m == 0 ? "the old root of an empty tree must be the empty root"
                               : "equal sizes with different roots");
            }
            return new ConsistencyCheck(true, rootM.clone(), rootN.clone(), OK);
        }
        if (proof.isEmpty()) {
            return fail("proof is empty");
        }
        // RFC 9162 2.1.4.2, steps 2 to 7.
        List<byte[]> path = proof;
        if (Long.bitCount(m) == 1) {
            path = new ArrayList<>(proof.size() + 1);
            path.add(rootM);
            path.addAll(proof);
        }
        long fn = m - 1;
        long sn = n - 1;
        while ((fn & 1) == 1) {
            fn >>>= 1;
            sn >>>= 1;
        }
        byte[] fr = path.get(0);
        byte[] sr = fr;
        for (int i = 1; i < path.size(); i++) {
            byte[] c = path.get(i);
            if (sn == 0) {
                return fail("proof is longer than the sizes allow");
            }
            if ((fn & 1) == 1 || fn == sn) {
                fr = Rfc9162.nodeHash(c, fr);
                sr = Rfc9162.nodeHash(c, sr);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>>= 1;
                    sn >>>= 1;
                }
            } else {
                sr = Rfc9162.nodeHash(sr, c);
            }
            fn >>>= 1;
            sn >>>= 1;
        }
        if (sn != 0) {
            return fail("proof is shorter than the sizes require");
        }
        boolean oldOk = MessageDigest.isEqual(fr, rootM);
        boolean newOk = MessageDigest.isEqual(sr, rootN);
        String reason = oldOk && newOk ? OK
                : !oldOk ? "proof leads to old root " + hex(fr) + ", expected " + hex(rootM)
                : "proof leads to new root " + hex(sr) + ", expected " + hex(rootN);
        return new ConsistencyCheck(oldOk && newOk, fr.clone(), sr.clone(), reason);
    }

    private record Computed(byte[] root, String problem) {}

    // RFC 9162 2.1.3.2, steps 1 to 5 except the final comparison with the expected root.
    private static Computed computeInclusionRoot(
            byte[] leafHash, long leafIndex, long treeSize, List<byte[]> siblings) {
        if (!Rfc9162.isHash(leafHash)) {
            return new Computed(null, "leaf hash is not a 32-byte hash");
        }
        if (leafIndex < 0 || leafIndex >= treeSize) {
            return new Computed(null, "leaf index " + leafIndex + " is not in a tree of size " + treeSize);
        }
        String malformed = malformed(siblings);
        if (malformed != null) {
            return new Computed(null, malformed);
        }
        long fn = leafIndex;
        long sn = treeSize - 1;
        byte[] r = leafHash;
        for (byte[] p : siblings) {
            if (sn == 0) {
                return new Computed(null, "proof is longer than the tree size allows");
            }
            if ((fn & 1) == 1 || fn == sn) {
                r = Rfc9162.nodeHash(p, r);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>>= 1;
                    sn >>>= 1;
                }
            } else {
                r = Rfc9162.nodeHash(r, p);
            }
            fn >>>= 1;
            sn >>>= 1;
        }
        if (sn != 0) {
            return new Computed(null, "proof is shorter than the tree size requires");
        }
        return new Computed(r.clone(), null);
    }

    private static String malformed(List<byte[]> proof) {
        if (proof == null) {
            return "proof is missing";
        }
        for (int i = 0; i < proof.size(); i++) {
            if (!Rfc9162.isHash(proof.get(i))) {
                return "proof element " + i + " is not a 32-byte hash";
            }
        }
        return null;
    }

    private static ConsistencyCheck fail(String reason) {
        return new ConsistencyCheck(false, null, null, reason);
    }

    private static String hex(byte[] hash) {
        return HexFormat.of().formatHex(hash);
    }
}
