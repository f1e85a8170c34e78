package io.trailproof.store;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * Bytes {@code [from, from + length)} of a file that no longer change in place, read through a
 * read-only memory map: a read is a copy from the page cache, with no system call. For the sparse
 * walks of verification, which read one frame and one leaf per event across a large log
 * (src/site/storage.md#memory-maps).
 *
 * <p><b>The guard.</b> A memory map has one failure a read through a channel does not: a page of it
 * that lies past the end of a file cut shorter after the map was made cannot be read, and the
 * operating system signals the reading thread ({@code SIGBUS}), which the JVM turns into an
 * {@link InternalError} on that thread rather than a crash, at once or a little after the read
 * (Java 17 delivers it at the thread's next safepoint check). So only bytes that nothing cuts are
 * mapped: the frames of a sealed segment (the log never changes a sealed file in place; an erasure
 * writes a new file and renames it over the old one, which a map keeps reading) and the written
 * prefix of a tree level (only a truncation for a rebuild cuts it, which no running service does);
 * the file's length is checked to cover them before the map is made ({@link CorruptLogException}
 * otherwise). If a file is cut all the same, from outside the service, a read of it ends in
 * {@link #copy}'s {@link CorruptLogException} or in an {@link InternalError} that the walk turns into
 * one, never in a crash; and when the error comes a little after the read, the bytes the read left
 * (zeros) fail the checks made on the copy (the frame's header and CRC, the leaf's comparison), so
 * they never pass.
 *
 * <p>A map is unmapped by the garbage collector once nothing refers to it (the JDK offers no safe
 * explicit unmap): readers hold their map while they read, so no read ever touches an unmapped page.
 * Immutable and safe for concurrent readers (every read is absolute).
 */
final class MappedRegion {

    /** The most bytes one map covers (a {@link MappedByteBuffer}'s limit); larger files are read through channels. */
    static final long MAX_BYTES = Integer.MAX_VALUE;

    private final Path file;
    private final long from;
    private final MappedByteBuffer map;

    private MappedRegion(Path file, long from, MappedByteBuffer map) {
        this.file = file;
        this.from = from;
        this.map = map;
    }

    /**
     * Maps {@code [from, from + length)} of the file open on {@code channel} (at most
     * {@link #MAX_BYTES}), once its length is found to cover them.
     *
     * @throws CorruptLogException when the file is shorter than {@code from + length}
     */
    static MappedRegion map(FileChannel channel, Path file, long from, long length) throws IOException {
        if (from < 0 || length < 0 || length > MAX_BYTES) {
            throw new IllegalArgumentException("cannot map " + length + " bytes at " + from + " of " + file);
        }
        long size = channel.size();
        if (size < from + length) {
            throw new CorruptLogException(file, size, "file ends before the " + (from + length) + " bytes it must hold");
        }
        return new MappedRegion(file, from, channel.map(FileChannel.MapMode.READ_ONLY, from, length));
    }

    /** The file offset of the first mapped byte. */
    long from() {
        return from;
    }

    /** The file offset after the last mapped byte. */
    long end() {
        return from + map.capacity();
    }

    /** Whether {@code [at, at + n)} of the file is mapped here. */
    boolean covers(long at, long n) {
        return at >= from && n >= 0 && at + n <= end();
    }

    /**
     * Copies {@code n} bytes at file offset {@code at} into {@code dst[off, off + n)}.
     *
     * @throws CorruptLogException when the bytes are not all mapped here, or the file was cut under
     *     the map (see the class comment)
     */
    void copy(long at, byte[] dst, int off, int n) throws CorruptLogException {
        if (!covers(at, n)) {
            throw new CorruptLogException(file, at, n + " bytes read past the end of the mapped " + (end() - from));
        }
        try {
            map.get((int) (at - from), dst, off, n);
        } catch (InternalError e) {
            if (!isMapFault(e)) {
                throw e;
            }
            throw unreadable(file, at, e);
        }
    }

    /**
     * Whether {@code e} is the JVM's report of a read through a memory map that failed (a page the
     * file no longer holds), rather than any other internal error.
     */
    static boolean isMapFault(InternalError e) {
        String m = e.getMessage();
        return m != null && m.contains("unsafe memory access");
    }

    /** The {@link CorruptLogException} for an {@link InternalError} of a read through a map of {@code file}. */
    static CorruptLogException unreadable(Path file, long at, InternalError e) {
        CorruptLogException c = new CorruptLogException(file, at, "file changed under its memory map ("
                + e.getMessage() + ")");
        c.initCause(e);
        return c;
    }

    @Override
    public String toString() {
        return file + " [" + from + ", " + end() + ")";
    }
}
