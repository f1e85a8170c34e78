package io.trailproof.store;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The read channels of a log's segments, at most {@code max} of them open at once (src/site/storage.md on
 * long logs: file descriptors stay bounded however many segments there are). The least recently
 * used channel is closed when another is needed; a segment's channel is reopened on demand.
 *
 * <p>A channel in use is never closed under its reader: eviction retires it and the last reader
 * closes it, so at most {@code max} plus the number of concurrent readers are open. A reader whose
 * thread is interrupted closes its channel (a {@link FileChannel} property); that channel is
 * discarded and the next reader of the segment opens a fresh one, so an interrupt never breaks
 * reads for other threads.
 *
 * <p>It also keeps the memory maps of sealed segments that sparse walks read through
 * ({@link #map}), at most {@code maxMaps} of them, the least recently used let go (for the garbage
 * collector to unmap: {@link MappedRegion}); a retired segment's map is let go at once.
 */
final class ReadChannels {

    /** One open channel and how many readers hold it. Guarded by the owning {@link ReadChannels}. */
    static final class Lease {
        final FileChannel channel;
        private int users;
        private boolean retired;

        private Lease(FileChannel channel) {
            this.channel = channel;
        }
    }

    /** Sealed segments kept mapped at once, at most: 64 GiB of the default 64 MiB segments. */
    static final int DEFAULT_MAX_MAPS = 1024;

    private final int max;
    private final int maxMaps;
    /** Keyed by the segment object, as {@link #open} is; only sealed segments' frames. */
    private final Map<Segment, MappedRegion> maps = new LinkedHashMap<>(16, 0.75f, true);
    /** Bytes read from segment files through these channels (tests: what a start reads). */
    private final LongAdder bytesRead = new LongAdder();
    /**
     * Keyed by the segment object, not its path: a rewritten segment (src/site/erasure.md) is a new
     * object under the same name, and a channel opened on the file it replaced must never serve it.
     */
    private final Map<Segment, Lease> open = new LinkedHashMap<>(16, 0.75f, true);
    private int openChannels;
    private boolean closed;

    void countRead(int n) {
        bytesRead.add(n);
    }

    /** Bytes read from segment files so far. */
    long bytesRead() {
        return bytesRead.sum();
    }

    ReadChannels(int max) {
        this(max, DEFAULT_MAX_MAPS);
    }

    ReadChannels(int max, int maxMaps) {
        if (max < 1 || maxMaps < 1) {
            throw new IllegalArgumentException("at least one read channel and one map are needed: " + max + ", " + maxMaps);
        }
        this.max = max;
        this.maxMaps = maxMaps;
    }

    /**
     * A map of {@code sealed}'s frames, {@code [0, readableEnd)}: the segment must be sealed (the log
     * rolled past it), so that its readable end is final and nothing writes or cuts its file
     * (src/site/storage.md#memory-maps). Made on first use, checking first that the file holds
     * the readable end; kept for later walks.
     *
     * @throws SegmentReplacedException when the segment was {@link #retire(Segment) retired}
     * @throws CorruptLogException when the file is shorter than the segment's readable end
     */
    synchronized MappedRegion map(Segment sealed) throws IOException {
        checkReadable(sealed);
        MappedRegion m = maps.get(sealed);
        if (m == null) {
            // Not retired, under this lock: the path still names the file this object describes
            // (retire runs before the rename that replaces it).
            try (FileChannel ch = FileChannel.open(sealed.path, StandardOpenOption.READ)) {
                m = MappedRegion.map(ch, sealed.path, 0, sealed.readableEnd());
            }
            maps.put(sealed, m);
            Iterator<Map.Entry<Segment, MappedRegion>> it = maps.entrySet().iterator();
            while (maps.size() > maxMaps && it.hasNext()) {
                it.next();
                it.remove();
            }
        }
        return m;
    }

    /** Neither this object closed nor the segment retired (its path may name a rewritten file); under the lock. */
    private void checkReadable(Segment segment) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        if (segment.retired) {
            throw new SegmentReplacedException(segment);
        }
    }

    /** Maps kept now (for tests). */
    synchronized int maps() {
        return maps.size();
    }

    /**
     * A channel for {@code file}, held until {@link #release}.
     *
     * @throws SegmentReplacedException when the segment was {@link #retire(Segment) retired}: its
     *     file may already be the rewritten one, so it is never opened again for this object
     */
    synchronized Lease acquire(Segment file) throws IOException {
        checkReadable(file);
        Lease lease = open.get(file);
        if (lease == null || !lease.channel.isOpen()) {
            if (lease != null) {
                retire(file, lease);
            }
            lease = new Lease(FileChannel.open(file.path, StandardOpenOption.READ));
            openChannels++;
            open.put(file, lease);
            evictBeyondMax();
        }
        lease.users++;
        return lease;
    }

    synchronized void release(Lease lease) {
        lease.users--;
        if (lease.retired && lease.users == 0) {
            closeQuietly(lease);
        }
    }

    /** Drops a channel that was closed under its reader (an interrupt), so the next reader opens a new one. */
    synchronized void discard(Segment file, Lease broken) {
        if (open.get(file) == broken) {
            retire(file, broken);
        }
    }

    /**
     * Marks a segment that is about to be replaced by its rewrite: later {@link #acquire}s of it
     * fail, its cached channel closes once the readers holding it are done. Readers already holding
     * a lease finish on the file they opened. Called before the replacing rename, so that no
     * channel of this object is ever opened on the new file.
     */
    synchronized void retire(Segment segment) {
        segment.retired = true;
        maps.remove(segment);
        Lease lease = open.get(segment);
        if (lease != null) {
            retire(segment, lease);
        }
    }

    /** Channels open now (for tests and metrics). */
    synchronized int openChannels() {
        return openChannels;
    }

    /** Closes every channel not in use; the rest close when released. Later acquires fail. */
    synchronized void close() {
        closed = true;
        maps.clear();
        for (Iterator<Map.Entry<Segment, Lease>> it = open.entrySet().iterator(); it.hasNext(); ) {
            Lease lease = it.next().getValue();
            it.remove();
            lease.retired = true;
            if (lease.users == 0) {
                closeQuietly(lease);
            }
        }
    }

    private void evictBeyondMax() {
        Iterator<Map.Entry<Segment, Lease>> it = open.entrySet().iterator();
        while (open.size() > max && it.hasNext()) {
            Lease eldest = it.next().getValue();
            it.remove();
            eldest.retired = true;
            if (eldest.users == 0) {
                closeQuietly(eldest);
            }
        }
    }

    private void retire(Segment file, Lease lease) {
        open.remove(file);
        lease.retired = true;
        if (lease.users == 0) {
            closeQuietly(lease);
        }
    }

    private void closeQuietly(Lease lease) {
        if (lease.users < 0) {
            return;
        }
        lease.users = -1;   // closed once
        openChannels--;
        try {
            lease.channel.close();
        } catch (IOException ignored) {
            // read-only channel: nothing to lose
        }
    }
}
