package io.trailproof.index;

import org.apache.lucene.store.Directory;

import java.util.function.UnaryOperator;

/**
 * How a Lucene index is opened: the size of the writer's RAM buffer, and a wrapper around its
 * {@link Directory} (the identity in service; tests put a fault-injecting directory there).
 *
 * <p>The RAM buffer holds inverted documents until they are flushed as a segment. It is the
 * index's largest use of heap, so by default it takes a fixed share of the heap
 * ({@link #fromHeap}): a small heap still leaves room for requests, a large one indexes with
 * fewer, larger flushes.
 */
public record IndexOptions(int ramBufferMb, UnaryOperator<Directory> directoryWrapper) {

    /** The default RAM buffer is the heap divided by this ... */
    static final int HEAP_SHARE = 16;
    /** ... but never below this (Lucene's own default) ... */
    static final int MIN_AUTO_MB = 16;
    /** ... nor above this: beyond it, larger flushes no longer make indexing faster. */
    static final int MAX_AUTO_MB = 128;

    public IndexOptions {
        if (ramBufferMb < 1) {
            throw new IllegalArgumentException("the index RAM buffer must be at least 1 MB, got " + ramBufferMb);
        }
        if (directoryWrapper == null) {
            directoryWrapper = UnaryOperator.identity();
        }
    }

    /** {@code configuredMb} (index.ram-buffer-mb) when set, else sized from this JVM's maximum heap. */
    public static IndexOptions of(int configuredMb) {
        return new IndexOptions(configuredMb > 0 ? configuredMb : fromHeap(Runtime.getRuntime().maxMemory()), null);
    }

    /** The default RAM buffer for a heap of {@code maxHeapBytes}: a sixteenth of it, between 16 and 128 MB. */
    static int fromHeap(long maxHeapBytes) {
        long mb = maxHeapBytes / HEAP_SHARE / (1024 * 1024);
        return (int) Math.max(MIN_AUTO_MB, Math.min(MAX_AUTO_MB, mb));
    }

    /** The same options with {@code wrapper} around the index's directory. */
    public IndexOptions withDirectoryWrapper(UnaryOperator<Directory> wrapper) {
        return new IndexOptions(ramBufferMb, wrapper);
    }
}
