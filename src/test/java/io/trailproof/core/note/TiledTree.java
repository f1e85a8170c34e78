package io.trailproof.core.note;

import io.trailproof.core.merkle.Rfc9162;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads an RFC 9162 tree through its tlog-tiles alone, as a client of a tiled log does: the root at
 * any size comes from at most two tiles per tile level (the full tiles of the left subtrees and the
 * partial tile of the right edge). A client checks that root against a signed checkpoint. The
 * reference client of the tests: the service serves tiles and never reads them back this way.
 */
public final class TiledTree {

    /** Where the tiles come from (an HTTP client, a directory, a test's map). */
    @FunctionalInterface
    public interface TileSource {
        /** The bytes of {@code tile}: {@code 32 * width} bytes, or fewer when the source lacks it. */
        byte[] fetch(TilePath tile) throws Exception;
    }

    private TiledTree() {}

    /**
     * The root of the first {@code treeSize} leaves, computed only from tiles of {@code source}.
     *
     * @throws TlogRejection {@link TlogRejection.Kind#PROOF_FAILED} when a tile is too short
     */
    public static byte[] root(long treeSize, TileSource source) throws Exception {
        if (treeSize == 0) {
            return Rfc9162.emptyRoot();
        }
        // The perfect subtrees of the tree, left to right, are its size's one bits, high to low.
        List<byte[]> subtrees = new ArrayList<>();
        long start = 0;
        for (int height = Long.SIZE - 2; height >= 0; height--) {
            long span = 1L << height;
            if ((treeSize & span) != 0) {
                subtrees.add(subtree(height, start >>> height, treeSize, source));
                start += span;
            }
        }
        byte[] root = subtrees.get(subtrees.size() - 1);
        for (int i = subtrees.size() - 2; i >= 0; i--) {
            root = Rfc9162.nodeHash(subtrees.get(i), root);
        }
        return root;
    }

    // The perfect subtree of `height` at `index`: 2^r hashes of the tile level below it, hashed up r levels.
    private static byte[] subtree(int height, long index, long treeSize, TileSource source) throws Exception {
        int level = height / TilePath.HEIGHT;
        int up = height % TilePath.HEIGHT;
        long first = index << up;
        long tileIndex = first / TilePath.FULL_WIDTH;
        int offset = (int) (first % TilePath.FULL_WIDTH);
        int count = 1 << up;
        TilePath tile = TilePath.inTree(false, level, tileIndex, treeSize).orElseThrow();
        byte[] bytes = source.fetch(tile);
        int hash = Rfc9162.HASH_LENGTH;
        if (bytes == null || bytes.length != tile.width() * hash || tile.width() < offset + count) {
            throw new TlogRejection(TlogRejection.Kind.PROOF_FAILED, "tile has the wrong length", tile.path());
        }
        List<byte[]> row = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int at = (offset + i) * hash;
            row.add(Arrays.copyOfRange(bytes, at, at + hash));
        }
        while (row.size() > 1) {
            List<byte[]> next = new ArrayList<>(row.size() / 2);
            for (int i = 0; i < row.size(); i += 2) {
                next.add(Rfc9162.nodeHash(row.get(i), row.get(i + 1)));
            }
            row = next;
        }
        return row.get(0);
    }
}
