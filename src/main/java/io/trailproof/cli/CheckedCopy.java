package io.trailproof.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * Copies a stream into a file while a check reads the same bytes on a second thread: the copying
 * thread moves the bytes (socket to buffer, buffer to file, both with the buffers outside the heap,
 * so no copy through it), the checking thread parses and digests them. The SHA-256 of every file in a
 * backup costs about as much CPU as the copy itself; done in line it halves the rate.
 *
 * <p>A fixed ring of {@value #BUFFERS} buffers of {@value #BUFFER_BYTES} bytes: nothing is allocated
 * per chunk, and the copy waits when the check is that far behind, so memory stays bounded. The check
 * sees every byte in order exactly as written to the file, and the copy stops as soon as the check
 * fails. Used once; not thread-safe.
 */
final class CheckedCopy {

    static final int BUFFER_BYTES = 1 << 20;
    static final int BUFFERS = 8;

    /** What runs over the bytes, on its own thread; its answer is the copy's. */
    @FunctionalInterface
    interface Check<T> {
        T run(InputStream bytes) throws Exception;
    }

    /** The outcome: what the check answered, and the bytes copied. */
    record Result<T>(T checked, long bytes) {
    }

    private static final ByteBuffer END = ByteBuffer.allocate(0);
    private static final ByteBuffer FAILED = ByteBuffer.allocate(0);
    private static final ByteBuffer CHECK_ENDED = ByteBuffer.allocate(0);

    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(BUFFERS + 1);
    private final BlockingQueue<ByteBuffer> full = new ArrayBlockingQueue<>(BUFFERS + 1);

    private CheckedCopy() {
        for (int i = 0; i < BUFFERS; i++) {
            free.add(ByteBuffer.allocateDirect(BUFFER_BYTES));
        }
    }

    /**
     * Copies {@code from} to its end into {@code to} (at its current position) while {@code check}
     * reads the same bytes. Returns when both are done.
     *
     * @throws ExecutionException carrying what the check threw (the copy stops then)
     * @throws IOException when reading or writing failed (the check is told the stream broke off, and
     *         is left to end on its own thread)
     */
    static <T> Result<T> copy(ReadableByteChannel from, FileChannel to, Check<T> check)
            throws IOException, ExecutionException, InterruptedException {
        return copy(from, to, 0, check);
    }

    /**
     * {@link #copy(ReadableByteChannel, FileChannel, Check)}, and every {@code forceEvery} bytes
     * written (0: never) the file is forced to disk on a third thread while the copy goes on, so the
     * caller's last force finds little left to write: the disk works during the transfer instead of
     * after it. A failed background force fails the copy (Linux reports a write-back error to one
     * {@code fsync} only, so it must not be dropped here).
     */
    static <T> Result<T> copy(ReadableByteChannel from, FileChannel to, long forceEvery, Check<T> check)
            throws IOException, ExecutionException, InterruptedException {
        ExecutorService forcing = forceEvery <= 0 ? null : Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "backup-force");
            t.setDaemon(true);
            return t;
        });
        try {
            return new CheckedCopy().run(from, to, forceEvery, forcing, check);
        } finally {
            if (forcing != null) {
                forcing.shutdownNow();
            }
        }
    }

    private <T> Result<T> run(ReadableByteChannel from, FileChannel to, long forceEvery, ExecutorService forcing,
                              Check<T> check) throws IOException, ExecutionException, InterruptedException {
        Future<?> forced = null;
        long forcedUpTo = 0;
        FutureTask<T> checking = new FutureTask<>(() -> {
            try (InputStream in = new Received()) {
                return check.run(in);
            } finally {
                free.put(CHECK_ENDED);   // wakes the copy if it waits for a buffer
            }
        });
        Thread checker = new Thread(checking, "backup-check");
        checker.setDaemon(true);
        checker.start();
        long bytes = 0;
        boolean ended = false;
        try {
            while (true) {
                ByteBuffer b = free.take();
                if (b == CHECK_ENDED) {
                    break;   // the check stopped early (it failed, or the archive ended before the stream)
                }
                b.clear();
                boolean eof = false;
                while (b.hasRemaining()) {
                    if (from.read(b) < 0) {
                        eof = true;
                        break;
                    }
                }
                b.flip();
                int start = b.position();
                while (b.hasRemaining()) {
                    to.write(b);
                }
                bytes += b.position() - start;
                b.position(start);
                full.put(b);
                if (forcing != null && bytes - forcedUpTo >= forceEvery && (forced == null || forced.isDone())) {
                    failed(forced);
                    forced = forcing.submit(() -> {
                        to.force(false);
                        return null;
                    });
                    forcedUpTo = bytes;
                }
                if (eof) {
                    full.put(END);
                    ended = true;
                    break;
                }
            }
        } finally {
            if (!ended) {
                full.put(FAILED);   // a copy that threw: the check must not read a short stream as the end
            }
        }
        // Here the copy reached the end, or stopped because the check ended first: either way what
        // the check answered (or threw) is the outcome; a short copy is the caller's to compare.
        T answer = checking.get();
        if (forced != null) {
            try {
                forced.get();
            } catch (ExecutionException e) {
                failed(forced);
            }
        }
        return new Result<>(answer, bytes);
    }

    /** Throws what a finished background force threw. */
    private static void failed(Future<?> forced) throws IOException, InterruptedException {
        if (forced == null || !forced.isDone()) {
            return;
        }
        try {
            forced.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException("forcing the file to disk failed", e.getCause());
        }
    }

    /** The checking thread's view: the buffers in order, each handed back once read. */
    private final class Received extends InputStream {
        private ByteBuffer current;
        private boolean atEnd;

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (current == null || !current.hasRemaining()) {
                if (atEnd) {
                    return -1;
                }
                giveBack();
                ByteBuffer next;
                try {
                    next = full.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted");
                }
                if (next == END) {
                    atEnd = true;
                    return -1;
                }
                if (next == FAILED) {
                    atEnd = true;
                    throw new IOException("the transfer broke off");
                }
                current = next;
            }
            int n = Math.min(len, current.remaining());
            current.get(buf, off, n);
            return n;
        }

        private void giveBack() {
            if (current != null) {
                free.add(current);   // never full: at most BUFFERS buffers and one marker circulate
                current = null;
            }
        }

        @Override
        public void close() {
            giveBack();
        }
    }
}
