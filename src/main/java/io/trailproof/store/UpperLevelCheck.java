package io.trailproof.store;

import io.trailproof.core.merkle.Rfc9162;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The check of a {@link MerkleNodeStore}'s derived levels: every node above level 0 is recomputed from
 * level 0 alone and compared with what readers are served and, for resident levels, with the file
 * copy too; optionally every wrong node is rewritten with its recomputation. Level 0 is read once, in
 * chunks of {@value #CHUNK_LEAVES} leaves (1 MiB); the work is one SHA-256 per interior node (n - 1
 * for n leaves) and memory one chunk per level below {@value #CHUNK_SHIFT} plus n / 2^15 hashes.
 */
final class UpperLevelCheck {
    static final int CHUNK_SHIFT = 15;
    static final int CHUNK_LEAVES = 1 << CHUNK_SHIFT;
    private static final int HASH = MerkleLevel.HASH;
    private static final HexFormat HEX = HexFormat.of();

    private final MerkleLevel[] levels;
    private final long leaves;
    private final long filesCover;
    private final boolean repair;
    private final long[] firstBad;
    private final long[] badNodes;
    // For the first wrong node of each level: its stored and recomputed hash, and whether every
    // ancestor checked so far is wrong too (what a changed leaf looks like, unlike a damaged node).
    private final String[] firstEvidence;
    private final boolean[] ancestorsBad;
    private final int[] ancestorsChecked;

    private UpperLevelCheck(MerkleLevel[] levels, long leaves, long filesCover, boolean repair) {
        this.levels = levels;
        this.leaves = leaves;
        this.filesCover = filesCover;
        this.repair = repair;
        this.firstBad = new long[levels.length];
        this.badNodes = new long[levels.length];
        this.firstEvidence = new String[levels.length];
        this.ancestorsBad = new boolean[levels.length];
        this.ancestorsChecked = new int[levels.length];
        Arrays.fill(firstBad, -1);
    }

    /**
     * Checks the tree of the first {@code leaves} leaves. The caller guarantees that those nodes are
     * published (it read the store's size before calling) and that, for each resident level k, the
     * file holds the nodes of the first {@code filesCover} leaves ({@code filesCover >>> k} nodes); 0
     * skips the file copies, for when memory was just loaded from them. With {@code repair}, the caller
     * holds the store's monitor and every level's file is flushed.
     *
     * @return one sentence per level with a wrong node, naming the file and the first wrong index
     */
    static List<String> run(MerkleLevel[] levels, long leaves, long filesCover, boolean repair) throws IOException {
        return new UpperLevelCheck(levels, leaves, filesCover, repair).run();
    }

    private List<String> run() throws IOException {
        byte[] top = new byte[HASH * (int) Math.max(1, leaves >>> CHUNK_SHIFT)];
        int topCount = 0;
        for (long start = 0; start < leaves; start += CHUNK_LEAVES) {
            int n = (int) Math.min(CHUNK_LEAVES, leaves - start);
            byte[] last = fold(0, start, levels[0].nodes(start, n), n, CHUNK_SHIFT);
            if (last != null) {
                System.arraycopy(last, 0, top, topCount * HASH, HASH);
                topCount++;
            }
        }
        fold(CHUNK_SHIFT, 0, top, topCount, levels.length - 1);
        List<String> out = new ArrayList<>();
        for (int k = 1; k < levels.length; k++) {
            if (firstBad[k] >= 0) {
                out.add(levels[k].file.getFileName() + ": " + badNodes[k] + " of " + (leaves >>> k)
                        + " nodes did not match their recomputation from level 0, the first at node index " + firstBad[k]
                        + " (" + firstEvidence[k] + ")"
                        + (ancestorsBad[k] && ancestorsChecked[k] > 0
                                ? ", and so does every node above it: the leaves under it in level-00.hash changed after"
                                        + " these nodes were written (compare level 0 with the log)"
                                : "")
                        + (repair ? "; rewrote them from level 0" : ""));
            }
        }
        return out;
    }

    /**
     * Hashes {@code nodes} (level {@code level}, starting at index {@code first}) pairwise up to level
     * {@code maxLevel} or until fewer than two remain, checking each computed level; returns the
     * single node reached at {@code maxLevel}, or null when the nodes do not reach it.
     */
    private byte[] fold(int level, long first, byte[] nodes, int count, int maxLevel) throws IOException {
        while (level < maxLevel && count >= 2) {
            int parents = count / 2;
            byte[] up = new byte[parents * HASH];
            byte[] left = new byte[HASH];
            byte[] right = new byte[HASH];
            for (int i = 0; i < parents; i++) {
                System.arraycopy(nodes, 2 * i * HASH, left, 0, HASH);
                System.arraycopy(nodes, (2 * i + 1) * HASH, right, 0, HASH);
                System.arraycopy(Rfc9162.nodeHash(left, right), 0, up, i * HASH, HASH);
            }
            level++;
            first >>>= 1;
            count = parents;
            nodes = up;
            compare(level, first, up, count);
        }
        return level == maxLevel && count == 1 ? nodes : null;
    }

    private void compare(int level, long first, byte[] computed, int count) throws IOException {
        MerkleLevel stored = levels[level];
        byte[] seen = stored.nodes(first, count);
        long bad = countBad(level, first, computed, seen, count);
        long onDisk = Math.min(count, (filesCover >>> level) - first);
        byte[] file = null;
        if (stored.resident && onDisk > 0) {
            file = stored.readFile(first, (int) onDisk);
            bad = Math.max(bad, countBad(level, first, computed, file, (int) onDisk));
        }
        for (int below = 1; below < level; below++) {
            long ancestor = firstBad[below] < 0 ? -1 : firstBad[below] >>> (level - below);
            if (ancestor >= first && ancestor < first + count) {
                int i = (int) (ancestor - first);
                boolean wrong = !Arrays.equals(computed, i * HASH, (i + 1) * HASH, seen, i * HASH, (i + 1) * HASH)
                        || (file != null && i < onDisk
                                && !Arrays.equals(computed, i * HASH, (i + 1) * HASH, file, i * HASH, (i + 1) * HASH));
                ancestorsBad[below] = (ancestorsChecked[below] == 0 || ancestorsBad[below]) && wrong;
                ancestorsChecked[below]++;
            }
        }
        badNodes[level] += bad;
        if (bad > 0 && repair) {
            stored.rewrite(first, computed, count);
        }
    }

    /** Counts the nodes of {@code seen} that differ from {@code computed}, noting the first one. */
    private long countBad(int level, long first, byte[] computed, byte[] seen, int count) {
        int at = Arrays.mismatch(computed, 0, count * HASH, seen, 0, count * HASH);
        if (at < 0) {
            return 0;
        }
        long bad = 0;
        for (int i = at / HASH; i < count; i++) {
            if (!Arrays.equals(computed, i * HASH, (i + 1) * HASH, seen, i * HASH, (i + 1) * HASH)) {
                bad++;
            }
        }
        long index = first + at / HASH;
        if (firstBad[level] < 0 || index < firstBad[level]) {
            int from = (at / HASH) * HASH;
            firstBad[level] = index;
            firstEvidence[level] = "stored " + HEX.formatHex(seen, from, from + HASH) + ", recomputed "
                    + HEX.formatHex(computed, from, from + HASH);
        }
        return bad;
    }
}
