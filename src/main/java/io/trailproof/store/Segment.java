package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One segment file {@code NNNNNNNNNNNNNNNNNNNN.seg} (20-digit index of its first payload), read
 * through the log's bounded {@link ReadChannels}, and its <em>readable end</em>: the end of the last
 * committed group in it that readers may see (src/site/storage.md#readers-see-one-readable-size).
 * Safe for concurrent readers.
 *
 * <p>The readable end is the one bound every read path uses, never the file's length: the file may
 * hold more (a group being written, the partial group of a failed write before it is cut), and a
 * reader's buffer or window size says nothing about where the frames end. The writer moves it
 * forward after a group is written and before it publishes the log size that counts the group,
 * so a reader that read the size sees an end covering every payload below it.
 *
 * <p>A segment rewritten by an erasure (src/site/erasure.md#physically-gone) is a new object under
 * the same name, carrying the positions of its frames in the new file ({@link #position}) and the
 * new file's length as its readable end; the object it replaced is retired, and a read through it
 * fails with {@link SegmentReplacedException} so the reader retries with the log's current segments.
 */
final class Segment {
    static final String SUFFIX = ".seg";

    final long start;
    final Path path;
    private final ReadChannels channels;
    /**
     * Frame offsets of payloads {@code start, start + 1, ...} in a rewritten file or a sealed segment
     * (packed: about 2.5 bytes a payload where the log's table takes 8); null: the log's table, or
     * not loaded yet ({@link #loader}).
     */
    private volatile PackedPositions positions;
    /** A sealed segment opened from its seal record: reads its frame offsets on first use; else null. */
    private final PositionLoader loader;
    /** Set (under the channels' lock) once a rewrite is about to replace this segment's file. */
    volatile boolean retired;
    /** Written by the one writer (the append lock, or recovery before the log is shared); never decreases. */
    private volatile long readableEnd;

    Segment(long start, Path path, ReadChannels channels, long readableEnd) {
        this(start, path, channels, null, null, readableEnd);
    }

    /** A rewritten or fully checked sealed segment: its frames at {@code positions}, {@code readableEnd} its length. */
    Segment(long start, Path path, ReadChannels channels, long[] positions, long readableEnd) {
        this(start, path, channels, positions, null, readableEnd);
    }

    /** A sealed segment whose frame offsets {@code loader} reads when it is first read (src/site/storage.md#what-a-start-reads). */
    Segment(long start, Path path, ReadChannels channels, PositionLoader loader, long readableEnd) {
        this(start, path, channels, null, loader, readableEnd);
    }

    private Segment(long start, Path path, ReadChannels channels, long[] positions, PositionLoader loader,
                    long readableEnd) {
        this.start = start;
        this.path = path;
        this.channels = channels;
        this.positions = positions == null ? null : PackedPositions.of(positions, 0, positions.length);
        this.loader = loader;
        this.readableEnd = readableEnd;
    }

    /** Reads a sealed segment's frame offsets: from its seal record, or by checking every frame of it. */
    @FunctionalInterface
    interface PositionLoader {
        /**
         * @throws CorruptLogException when the segment fails its check (the read that needed it fails)
         */
        long[] load(Segment segment) throws IOException;
    }

    /**
     * The offset of payload {@code index}'s frame in this file; the first call on a sealed segment
     * opened from its seal record reads its offsets.
     */
    long position(long index, PositionTable table) throws IOException {
        PackedPositions p = positions;
        if (p == null) {
            if (loader == null) {
                long at = table.get(index);
                if (at >= 0) {
                    return at;
                }
                // The table let the entry go after this segment was sealed, which set the positions first.
                p = positions;
                if (p == null) {
                    throw new IllegalStateException("payload " + index + " of " + path + " has no position");
                }
            } else {
                p = loadPositions();
            }
        }
        return p.get((int) (index - start));
    }

    /** True once this segment's frame offsets are in memory (or kept in the log's table). */
    boolean positionsLoaded() {
        return positions != null || loader == null;
    }

    /**
     * A sealed segment keeps its frame offsets itself: one checked in full at recovery (before the
     * log is shared), or the one the writer has just sealed, before the log's table lets its entries
     * go ({@link PositionTable#releaseBelow}).
     */
    void keepPositions(long[] found) {
        positions = PackedPositions.of(found, 0, found.length);
    }

    private synchronized PackedPositions loadPositions() throws IOException {
        if (positions == null) {
            long[] loaded = loader.load(this);
            positions = PackedPositions.of(loaded, 0, loaded.length);
        }
        return positions;
    }

    static String fileName(long start) {
        return String.format("%020d", start) + SUFFIX;
    }

    /** The first payload index a segment file's name announces. */
    static long parseStart(Path f) throws CorruptLogException {
        String name = f.getFileName().toString();
        String digits = name.substring(0, name.length() - SUFFIX.length());
        if (digits.length() != 20 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new CorruptLogException(f, 0, "unexpected segment file name");
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new CorruptLogException(f, 0, "unexpected segment file name");
        }
    }

    /** Positional read of up to {@code dst.remaining()} bytes; returns how many were read (fewer at end of file). */
    int read(ByteBuffer dst, long pos) throws IOException {
        int total = 0;
        boolean retried = false;
        while (dst.hasRemaining()) {
            ReadChannels.Lease lease = channels.acquire(this);
            try {
                while (dst.hasRemaining()) {
                    int n = lease.channel.read(dst, pos + total);
                    if (n < 0) {
                        return total;
                    }
                    total += n;
                    channels.countRead(n);
                }
            } catch (ClosedByInterruptException e) {
                channels.discard(this, lease);   // this thread was interrupted: repair for others, give up
                throw e;
            } catch (ClosedChannelException e) {
                // another reader's interrupt closed the shared channel: once more with a fresh one
                channels.discard(this, lease);
                if (retried) {
                    throw e;
                }
                retried = true;
            } finally {
                channels.release(lease);
            }
        }
        return total;
    }

    /**
     * The file's current length: only for recovery, which decides the readable end from it, and
     * for nothing that reads a live log (see the class comment).
     */
    long fileSize() throws IOException {
        return Files.size(path);
    }

    /** Where the committed frames a reader may see end (see the class comment). */
    long readableEnd() {
        return readableEnd;
    }

    /** Moves the readable end to {@code end} (the writer, after a group is written; or recovery). */
    void publishEnd(long end) {
        if (end < readableEnd) {
            throw new IllegalStateException("readable end of " + path + " would move back from " + readableEnd + " to " + end);
        }
        readableEnd = end;
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
