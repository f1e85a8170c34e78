package io.trailproof.core.note;

import io.trailproof.core.note.TlogRejection.Kind;
import java.util.Optional;

/**
 * One resource of a {@code c2sp.org/tlog-tiles} v0.1.0 log: a Merkle tile {@code tile/<L>/<N>[.p/<W>]}
 * or an entry bundle {@code tile/entries/<N>[.p/<W>]}, and the home of that specification's constants.
 *
 * <p>Tile {@code N} at level {@code L} holds the hashes of the perfect subtrees of height
 * {@code 8 * L} with indexes {@code N * 256} to {@code N * 256 + width - 1}; level 0 holds the
 * RFC 9162 leaf hashes. The entry bundle {@code N} holds the entries of level-0 tile {@code N}.
 *
 * @param entries true for an entry bundle (then {@code level} is 0)
 * @param level the tile level, 0 to {@value #MAX_LEVEL}
 * @param index the tile index within its level
 * @param width the number of hashes or entries: {@value #FULL_WIDTH} for a full tile, else 1 to 255
 */
public record TilePath(boolean entries, int level, long index, int width) {
    /** Tree levels spanned by one tile: a tile holds 2^8 hashes. */
    public static final int HEIGHT = 8;
    /** Hashes in a full tile. */
    public static final int FULL_WIDTH = 1 << HEIGHT;
    /** The highest tile level. */
    public static final int MAX_LEVEL = 63;
    /** Bytes of the big-endian length that prefixes each entry in a bundle. */
    public static final int ENTRY_LENGTH_PREFIX = 2;
    /** Media type of tiles and entry bundles. */
    public static final String CONTENT_TYPE = "application/octet-stream";
    /** Path of the checkpoint, relative to the log's prefix. */
    public static final String CHECKPOINT_PATH = "checkpoint";

    private static final String TILE = "tile/";
    private static final String ENTRIES = "entries";
    private static final String PARTIAL = ".p/";
    /**
     * Index path elements accepted when parsing. Six give indexes below 10^18, more than any tree of
     * at most 2^63 leaves has tiles; longer paths are refused instead of risking overflow.
     */
    private static final int MAX_INDEX_ELEMENTS = 6;

    public TilePath {
        if (level < 0 || level > MAX_LEVEL || (entries && level != 0) || index < 0
                || width < 1 || width > FULL_WIDTH) {
            throw new IllegalArgumentException("no such tile: level " + level + ", index " + index + ", width " + width);
        }
    }

    /** True for a full tile (no {@code .p/} suffix). */
    public boolean full() {
        return width == FULL_WIDTH;
    }

    /** The path relative to the log's prefix, e.g. {@code tile/0/x001/x234/067.p/89}. */
    public String path() {
        return TILE + (entries ? ENTRIES : Integer.toString(level)) + "/" + encodeIndex(index)
                + (full() ? "" : PARTIAL + width);
    }

    /**
     * A tile index in 3-digit path elements, all but the last starting with {@code x}:
     * 1234067 is {@code x001/x234/067}.
     */
    public static String encodeIndex(long index) {
        if (index < 0) {
            throw new IllegalArgumentException("negative tile index " + index);
        }
        String s = String.format("%03d", index % 1000);
        for (long n = index / 1000; n > 0; n /= 1000) {
            s = String.format("x%03d/", n % 1000) + s;
        }
        return s;
    }

    /**
     * The tile or bundle as it exists in a tree of {@code treeSize} leaves: full once complete, else
     * partial with the hashes it has; empty when the tree has none of its hashes yet.
     */
    public static Optional<TilePath> inTree(boolean entries, int level, long index, long treeSize) {
        int width = widthInTree(level, index, treeSize);
        return width == 0 ? Optional.empty() : Optional.of(new TilePath(entries, level, index, width));
    }

    /**
     * The number of hashes tile {@code index} at {@code level} has in a tree of {@code treeSize}
     * leaves: {@value #FULL_WIDTH}, 1 to 255 (the partial tile: floor(s / 256^L) mod 256), or 0.
     */
    public static int widthInTree(int level, long index, long treeSize) {
        int shift = HEIGHT * level;
        long nodes = shift >= Long.SIZE - 1 ? 0 : treeSize >>> shift;
        long first = index * FULL_WIDTH;
        if (index < 0 || index > Long.MAX_VALUE / FULL_WIDTH || nodes <= first) {
            return 0;
        }
        return (int) Math.min(FULL_WIDTH, nodes - first);
    }

    /** Parses a path relative to the log's prefix ({@code tile/...}); {@link Kind#MALFORMED_TILE_PATH} otherwise. */
    public static TilePath parse(String path) throws TlogRejection {
        if (path == null || !path.startsWith(TILE)) {
            throw malformed(path);
        }
        String rest = path.substring(TILE.length());
        int slash = rest.indexOf('/');
        if (slash < 0) {
            throw malformed(path);
        }
        String levelText = rest.substring(0, slash);
        boolean entries = levelText.equals(ENTRIES);
        long level = entries ? 0 : TlogCheckpoint.parseDecimal(levelText);
        if (level < 0 || level > MAX_LEVEL) {
            throw malformed(path);
        }
        String indexText = rest.substring(slash + 1);
        int width = FULL_WIDTH;
        int p = indexText.indexOf(PARTIAL);
        if (p >= 0) {
            long w = TlogCheckpoint.parseDecimal(indexText.substring(p + PARTIAL.length()));
            if (w < 1 || w >= FULL_WIDTH) {
                throw malformed(path);
            }
            width = (int) w;
            indexText = indexText.substring(0, p);
        }
        long index = parseIndex(indexText);
        if (index < 0) {
            throw malformed(path);
        }
        return new TilePath(entries, (int) level, index, width);
    }

    // The inverse of encodeIndex, or -1: every element three digits, all but the last with an 'x'.
    private static long parseIndex(String text) {
        String[] elements = text.split("/", -1);
        if (elements.length > MAX_INDEX_ELEMENTS) {
            return -1;
        }
        long index = 0;
        for (int i = 0; i < elements.length; i++) {
            String e = elements[i];
            boolean last = i == elements.length - 1;
            if (!last) {
                if (!e.startsWith("x")) {
                    return -1;
                }
                e = e.substring(1);
            }
            if (e.length() != 3 || !e.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return -1;
            }
            index = index * 1000 + Integer.parseInt(e);
        }
        return index;
    }

    private static TlogRejection malformed(String path) {
        return new TlogRejection(Kind.MALFORMED_TILE_PATH, "not a tlog-tiles path", path);
    }
}
