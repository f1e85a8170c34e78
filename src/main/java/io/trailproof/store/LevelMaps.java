package io.trailproof.store;

import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * The nodes of one tree level's file that are written, read through memory maps
 * (src/site/storage.md#memory-maps): a verification reads one leaf per event across the whole level,
 * and a map makes each a copy instead of a system call. The file is cut into regions of
 * {@value #REGION_BYTES} bytes, each mapped from its start to as far as the file was written when
 * the map was made; the map is made again once {@value #GROW_BYTES} more bytes of the region are
 * written (so appends cost at most one map per that many bytes), and nodes past the map's end are
 * read from the file meanwhile ({@link #copy} answers false).
 *
 * <p>What is mapped is never cut while the service runs: the level only grows, a repair rewrites
 * bytes in place (which a map shows as the file does), and only a truncation for a rebuild cuts it,
 * which drops every map first ({@link #clear}); readers must not then ask for nodes above the new
 * size (as {@link MerkleNodeStore#truncate} says). A file cut from outside the service is the
 * {@link MappedRegion} guard's case. Safe for concurrent readers.
 */
final class LevelMaps {
    /** The bytes one map covers at most (2^25 nodes). */
    static final long REGION_BYTES = 1L << 30;
    /** Bytes written past a region's map before it is made again. */
    static final long GROW_BYTES = 2L << 20;

    private final Path file;
    /** Region {@code r}'s map, or null; replaced whole (copy on write) under this object's lock. */
    private volatile MappedRegion[] regions = new MappedRegion[0];

    LevelMaps(Path file) {
        this.file = file;
    }

    /**
     * Copies bytes {@code [at, at + n)} of the file into {@code out[0, n)} through a map when they are
     * mapped, or worth mapping now ({@code writtenBytes}: how much of the file is written, the caller
     * knows, and stays so); false when the caller must read them from the file (the bytes lie across
     * two regions, or past a map and too few bytes past it to map again).
     *
     * @throws CorruptLogException when the file is shorter than what it has written, or was cut under a map
     */
    boolean copy(long at, byte[] out, int n, long writtenBytes) throws IOException {
        int r = (int) (at / REGION_BYTES);
        long regionStart = r * REGION_BYTES;
        long regionEnd = regionStart + REGION_BYTES;
        if (at + n > regionEnd || at + n > writtenBytes) {
            return false;
        }
        MappedRegion[] now = regions;
        MappedRegion m = r < now.length ? now[r] : null;
        if (m == null || !m.covers(at, n)) {
            long reach = Math.min(regionEnd, writtenBytes);
            if (m != null && reach - m.end() < GROW_BYTES) {
                return false;
            }
            try {
                m = remap(r, regionStart, reach);
            } catch (ClosedByInterruptException e) {
                return false;   // an interrupted reader: the file's read keeps the interrupt and retries
            }
            if (!m.covers(at, n)) {
                return false;
            }
        }
        m.copy(at, out, 0, n);
        return true;
    }

    private synchronized MappedRegion remap(int r, long regionStart, long reach) throws IOException {
        MappedRegion[] now = regions;
        MappedRegion m = r < now.length ? now[r] : null;
        if (m != null && m.end() >= reach) {
            return m;   // another reader mapped it meanwhile
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            m = MappedRegion.map(ch, file, regionStart, reach - regionStart);
        }
        MappedRegion[] next = Arrays.copyOf(now, Math.max(now.length, r + 1));
        next[r] = m;
        regions = next;
        return m;
    }

    /** Lets every map go: before the file is cut, or when it is closed. */
    synchronized void clear() {
        regions = new MappedRegion[0];
    }
}
