package io.trailproof.store;

import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * How the segment log writes, forces and truncates its files (segments and the forced-size file):
 * the one seam through which every change to the log's bytes passes, so that tests can inject the
 * disk faults a {@code kill -9} cannot produce (a full disk in the middle of a group, a failing
 * {@code fsync}, a truncate that fails). Reads do not pass here.
 */
public interface SegmentIo {

    /** Opens an existing file for writing at explicit positions. */
    WritableFile open(Path file) throws IOException;

    /**
     * A file written at explicit positions. Callers serialise calls on one instance; {@link #force}
     * may run concurrently with {@link #write}.
     */
    interface WritableFile extends Closeable {
        /** Writes all of {@code b[off, off + len)} at {@code position}; on failure any prefix may have been written. */
        void write(long position, byte[] b, int off, int len) throws IOException;

        /** Forces written data and the file's length to disk ({@code fsync}). */
        void force() throws IOException;

        /** Sets the file's length (not forced). */
        void truncate(long length) throws IOException;
    }

    /**
     * Production: {@link RandomAccessFile}, whose descriptor a thread interrupt cannot close (a
     * {@code FileChannel} would be closed for every thread by one interrupted writer).
     */
    SegmentIo FILES = file -> new WritableFile() {
        private final RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw");

        @Override
        public void write(long position, byte[] b, int off, int len) throws IOException {
            raf.seek(position);
            raf.write(b, off, len);
        }

        @Override
        public void force() throws IOException {
            raf.getFD().sync();
        }

        @Override
        public void truncate(long length) throws IOException {
            raf.setLength(length);
        }

        @Override
        public void close() throws IOException {
            raf.close();
        }
    };
}
