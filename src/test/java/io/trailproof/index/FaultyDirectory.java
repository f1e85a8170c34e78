package io.trailproof.index;

import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FilterDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * A Lucene directory whose files fail or hang on demand, for what kill -9 cannot reach: a write
 * that fails in the middle of indexing (a full or failing disk), or one that hangs. Programmed by
 * the test; one program is shared by every directory it wraps (an index reopened after a failure
 * is wrapped again).
 */
final class FaultyDirectory extends FilterDirectory {

    /** What the wrapped directories do; thread-safe. */
    static final class Program implements UnaryOperator<Directory> {
        private final AtomicLong writesUntilFailure = new AtomicLong(-1);
        private final AtomicInteger failures = new AtomicInteger();
        private volatile boolean failForever;
        private volatile CountDownLatch gate;

        /** The {@code n}-th write (of segment data, not commit points) from now (1 = the next) throws an IOException, and so does every later one. */
        Program failFromWrite(long n) {
            failForever = true;
            writesUntilFailure.set(n);
            return this;
        }

        /** Only the {@code n}-th write from now fails; the disk is healthy again right after. */
        Program failOnceAtWrite(long n) {
            failForever = false;
            writesUntilFailure.set(n);
            return this;
        }

        /** Every write works again. */
        void heal() {
            failForever = false;
            writesUntilFailure.set(-1);
        }

        /** From now on, every write waits until {@link #release}. */
        void hang() {
            gate = new CountDownLatch(1);
        }

        void release() {
            CountDownLatch g = gate;
            gate = null;
            if (g != null) {
                g.countDown();
            }
        }

        /** How many writes failed so far. */
        int failures() {
            return failures.get();
        }

        @Override
        public Directory apply(Directory directory) {
            return new FaultyDirectory(directory, this);
        }

        void beforeWrite(String file) throws IOException {
            CountDownLatch g = gate;
            if (g != null) {
                try {
                    g.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while the test held the disk");
                }
            }
            long left = writesUntilFailure.get();
            if (left < 0 || file.startsWith("segments") || file.startsWith("pending_segments")) {
                // Only the segments' own files count: the commit point a fresh index writes at
                // open does not shift where the failure lands.
                return;
            }
            if (left <= 1) {
                if (!failForever) {
                    writesUntilFailure.set(-1);
                }
                failures.incrementAndGet();
                throw new IOException("injected write failure in " + file);
            }
            writesUntilFailure.compareAndSet(left, left - 1);
        }
    }

    private final Program program;

    private FaultyDirectory(Directory in, Program program) {
        super(in);
        this.program = program;
    }

    @Override
    public IndexOutput createOutput(String name, IOContext context) throws IOException {
        return new FaultyOutput(super.createOutput(name, context), name, program);
    }

    @Override
    public IndexOutput createTempOutput(String prefix, String suffix, IOContext context) throws IOException {
        IndexOutput out = super.createTempOutput(prefix, suffix, context);
        return new FaultyOutput(out, out.getName(), program);
    }

    private static final class FaultyOutput extends IndexOutput {
        private final IndexOutput out;
        private final String file;
        private final Program program;

        FaultyOutput(IndexOutput out, String file, Program program) {
            super("faulty(" + out + ")", file);
            this.out = out;
            this.file = file;
            this.program = program;
        }

        @Override
        public void writeByte(byte b) throws IOException {
            program.beforeWrite(file);
            out.writeByte(b);
        }

        @Override
        public void writeBytes(byte[] b, int offset, int length) throws IOException {
            program.beforeWrite(file);
            out.writeBytes(b, offset, length);
        }

        @Override
        public long getFilePointer() {
            return out.getFilePointer();
        }

        @Override
        public long getChecksum() throws IOException {
            return out.getChecksum();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
