package io.trailproof.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A programmable {@link SegmentIo} for disk faults a {@code kill -9} cannot produce: a disk that
 * fills in the middle of a write (the prefix that fit is written, then "No space left on device"),
 * failing {@code fsync}s, failing truncates, and forces held at a gate so a test can order events.
 * Faults apply to segment files only, unless {@link #failSideFileWrites} is set.
 */
public final class FaultInjectingIo implements SegmentIo {
    private final AtomicLong writeBudget = new AtomicLong(Long.MAX_VALUE);
    private volatile boolean failForces;
    private volatile boolean failTruncates;
    private volatile boolean failSideFileWrites;
    private volatile CountDownLatch forceGate = new CountDownLatch(0);
    final AtomicInteger heldForces = new AtomicInteger();
    final AtomicInteger failedForces = new AtomicInteger();

    /** The disk is full after {@code bytes} more bytes of segment data. */
    public void diskFullAfter(long bytes) {
        writeBudget.set(bytes);
    }

    public void failForces(boolean fail) {
        failForces = fail;
    }

    void failTruncates(boolean fail) {
        failTruncates = fail;
    }

    void failSideFileWrites(boolean fail) {
        failSideFileWrites = fail;
    }

    /** Segment forces block from now on until {@link #releaseForces}. */
    void holdForces() {
        forceGate = new CountDownLatch(1);
    }

    void releaseForces() {
        forceGate.countDown();
    }

    @Override
    public WritableFile open(Path file) throws IOException {
        WritableFile real = SegmentIo.FILES.open(file);
        boolean segment = file.getFileName().toString().endsWith(Segment.SUFFIX);
        return new WritableFile() {
            @Override
            public void write(long position, byte[] b, int off, int len) throws IOException {
                if (!segment) {
                    if (failSideFileWrites) {
                        throw new IOException("Input/output error (injected)");
                    }
                    real.write(position, b, off, len);
                    return;
                }
                long budget = writeBudget.getAndAccumulate(len, (left, n) -> left == Long.MAX_VALUE ? left : Math.max(0, left - n));
                if (budget < len) {
                    if (budget > 0) {
                        real.write(position, b, off, (int) budget);
                    }
                    throw new IOException("No space left on device (injected)");
                }
                real.write(position, b, off, len);
            }

            @Override
            public void force() throws IOException {
                if (segment) {
                    CountDownLatch gate = forceGate;
                    if (gate.getCount() > 0) {
                        heldForces.incrementAndGet();
                        try {
                            gate.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IOException("interrupted at the force gate", e);
                        }
                    }
                    if (failForces) {
                        failedForces.incrementAndGet();
                        throw new IOException("Input/output error (injected fsync failure)");
                    }
                } else if (failSideFileWrites) {
                    throw new IOException("Input/output error (injected)");
                }
                real.force();
            }

            @Override
            public void truncate(long length) throws IOException {
                if (segment && failTruncates) {
                    throw new IOException("Input/output error (injected truncate failure)");
                }
                real.truncate(length);
            }

            @Override
            public void close() throws IOException {
                real.close();
            }
        };
    }
}
