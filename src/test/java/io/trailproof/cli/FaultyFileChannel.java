package io.trailproof.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A real file channel a test can program to fail as a disk does where kill -9 cannot reach: writes
 * past {@code writableBytes} throw "No space left on device" after writing what fits (a full disk),
 * and {@link #force} throws "Input/output error" once {@code failForces} is set (a write-back error
 * reported by fsync). Everything else is the real channel's.
 */
final class FaultyFileChannel extends FileChannel {

    private final FileChannel real;
    private final long writableBytes;
    volatile boolean failForces;
    volatile int forces;

    FaultyFileChannel(FileChannel real, long writableBytes) {
        this.real = real;
        this.writableBytes = writableBytes;
    }

    private int fit(ByteBuffer src, long at) throws IOException {
        long room = writableBytes - at;
        if (room <= 0) {
            throw new IOException("No space left on device");
        }
        if (src.remaining() <= room) {
            return -1;
        }
        int limit = src.limit();
        src.limit(src.position() + (int) room);
        try {
            return real.write(src);
        } finally {
            src.limit(limit);
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int partial = fit(src, real.position());
        return partial >= 0 ? partial : real.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += write(srcs[i]);
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        if (position + src.remaining() > writableBytes) {
            throw new IOException("No space left on device");
        }
        return real.write(src, position);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        forces++;
        if (failForces) {
            throw new IOException("Input/output error");
        }
        real.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return real.read(dsts, offset, length);
    }

    @Override
    public long position() throws IOException {
        return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        real.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        real.truncate(size);
        return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
        throw new UnsupportedOperationException("not programmed: a transfer would bypass the faults");
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return real.read(dst, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) {
        throw new UnsupportedOperationException("not programmed: a mapping would bypass the faults");
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        real.close();
    }
}
