package io.trailproof.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The write side of the segment log: appends groups to the current segment, rolls to new ones,
 * drives group commit ({@link GroupCommit}) and the forced-size file, and, when a write or a
 * force fails, makes the groups it refuses absent before any waiter is answered (the rules are
 * stated on {@link SegmentLog}). Appends are serialised by this object's monitor (the append lock).
 */
final class SegmentAppender {
    private static final System.Logger LOG = System.getLogger(SegmentAppender.class.getName());

    /** The end of the last written (or forced) group: payload count, and where it ends in which file. */
    private record Tail(long count, Segment segment, SegmentIo.WritableFile writer, long end) {
    }

    private final Path dir;
    private final long segmentBytes;
    private final SegmentIo io;
    private final ReadChannels channels;
    private final PositionTable table;
    private final GroupCommit commit;

    // Published by volatile writes: table entries and the segment's readable end before size, size before written.
    private volatile Segment[] segments;
    private volatile long size;
    private volatile Tail written;
    /** Payloads from here on were refused when the log failed. */
    private volatile long refusedFrom = Long.MAX_VALUE;

    // Guarded by this (the append lock).
    private Segment current;
    private SegmentIo.WritableFile writer;
    private long writeEnd;
    /** Side records written to the current segment (offset, payload), for its seal record. */
    private final List<SealRecord.Side> currentSides = new ArrayList<>();

    // Changed with sync ownership (GroupCommit.begin).
    private volatile Tail forcedTail;
    private volatile boolean forceFailed;
    private ForcedSizeFile forcedFile;

    SegmentAppender(Path dir, long segmentBytes, SegmentIo io, ReadChannels channels, PositionTable table,
                    SegmentRecovery.Result recovered) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.io = io;
        this.channels = channels;
        this.table = table;
        this.segments = recovered.segments().toArray(new Segment[0]);
        this.size = recovered.size();
        this.writeEnd = recovered.lastSegmentEnd();
        this.currentSides.addAll(recovered.lastSegmentSides());
        this.commit = new GroupCommit(dir, recovered.size(), new GroupCommit.Syncer() {
            @Override
            public long force() throws IOException {
                return forceWritten();
            }

            @Override
            public void settleFailure() {
                synchronized (SegmentAppender.this) {
                    commit.beginUninterruptibly();
                    try {
                        rollBack();
                    } finally {
                        commit.end();
                    }
                }
            }
        });
    }

    /** Opens the last segment for writing (creating the first if there is none) and makes everything found durable. */
    synchronized void start() throws IOException {
        Segment[] segs = segments;
        if (segs.length == 0) {
            NewSegment first = createSegment(0);
            current = first.segment();
            writer = first.writer();
            segments = new Segment[] {current};
        } else {
            current = segs[segs.length - 1];
            writer = io.open(current.path);
            writer.force();   // data found in the page cache is durable from here on
        }
        Tail t = new Tail(size, current, writer, writeEnd);
        written = t;
        forcedTail = t;
        forcedFile = ForcedSizeFile.open(dir, io, size);
    }

    Segment[] segments() {
        return segments;
    }

    /**
     * Rolls to a new segment when the current one holds payload {@code index} (so that a rewrite
     * touches sealed segments only, src/site/erasure.md#physically-gone). Holds the append lock for
     * the roll only.
     */
    synchronized void sealThrough(long index) throws IOException {
        commit.checkUsable();
        if (index >= current.start && size > current.start) {
            roll();
        }
    }

    /** A step that replaces a segment's file, run under the append lock. */
    @FunctionalInterface
    interface FileSwap {
        void run() throws IOException;
    }

    /**
     * Replaces sealed segment {@code ordinal} ({@code old}) by {@code fresh}: runs {@code swap}
     * (which puts the new file under the segment's name) and publishes the new segment array,
     * under the append lock so that a concurrent roll cannot lose either change.
     */
    synchronized void replace(int ordinal, Segment old, Segment fresh, FileSwap swap) throws IOException {
        Segment[] now = segments;
        if (ordinal >= now.length - 1 || now[ordinal] != old) {
            throw new IllegalStateException("segment " + old + " is not sealed segment " + ordinal);
        }
        swap.run();
        Segment[] next = now.clone();
        next[ordinal] = fresh;
        segments = next;
    }

    long size() {
        return size;
    }

    long refusedFrom() {
        return refusedFrom;
    }

    GroupCommit commit() {
        return commit;
    }

    CompletableFuture<Void> whenDurable(long endExclusive) {
        if (endExclusive > size) {
            throw new IllegalArgumentException("whenDurable(" + endExclusive + ") beyond size " + size);
        }
        return commit.whenDurable(endExclusive);
    }

    /**
     * The encoding of the last group, kept for the next one (appends are serialised by this
     * object's lock, and a write copies the bytes before it returns). A group of 1,000 events is
     * about 800 KB: allocated anew for every group, such an array is one G1 "humongous" object per
     * batch, and each of those started a concurrent marking cycle with its own Remark pause.
     * Groups over {@link #KEPT_GROUP_BUFFER_BYTES} get an array of their own.
     */
    private byte[] groupBuffer = new byte[0];
    private static final int KEPT_GROUP_BUFFER_BYTES = 4 << 20;

    /**
     * Writes one group (record frames, side frames and a commit frame, in one write) and returns
     * the index of its first payload and the addresses of its side frames; readable on return, not
     * durable ({@link SegmentLog#append}).
     */
    synchronized EventLog.Appended append(List<byte[]> payloads, List<byte[]> sides) throws IOException {
        commit.checkUsable();
        int total = FrameCodec.groupBytes(payloads, sides);
        // A segment is named for its first payload: one that holds no payload yet (only side
        // frames) is never rolled, so two segments never share a name.
        if (writeEnd >= segmentBytes && writeEnd > 0 && size > current.start) {
            roll();
        }
        int n = payloads.size();
        long first = size;
        table.reserve(first + n);   // before the group is on disk: running out of memory refuses it
        long[] offsets = new long[n];
        long[] sideOffsets = new long[sides.size()];
        byte[] buf = FrameCodec.encodeGroup(groupBuffer, payloads, sides, total, first + n, commit.durable(), offsets,
                sideOffsets);
        if (buf.length <= KEPT_GROUP_BUFFER_BYTES) {
            groupBuffer = buf;
        }
        try {
            writer.write(writeEnd, buf, 0, total);
        } catch (IOException | RuntimeException | Error e) {
            IOException f = commit.fail(e, "write to " + current.path + " failed");
            commit.beginUninterruptibly();
            try {
                rollBack();
            } finally {
                commit.end();
            }
            throw f;
        }
        for (int i = 0; i < n; i++) {
            table.set(first + i, writeEnd + offsets[i]);
        }
        long[] addresses = new long[sides.size()];
        int ordinal = segments.length - 1;
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = FrameCodec.sideAddress(ordinal, writeEnd + sideOffsets[i]);
            currentSides.add(new SealRecord.Side(writeEnd + sideOffsets[i], sides.get(i).clone()));
        }
        writeEnd += total;
        current.publishEnd(writeEnd);   // before the size that counts the group (Segment: the readable end)
        size = first + n;
        written = new Tail(first + n, current, writer, writeEnd);
        return new EventLog.Appended(first, addresses);
    }

    /**
     * Forces everything written so far, now, on the caller's thread (with the append lock and sync
     * ownership, as a roll does): for a group of side records alone, which advances no payload count
     * and so is not covered by {@link #whenDurable}. A failure fails the log as a failed flusher
     * force does.
     */
    synchronized void forceWrittenNow() throws IOException {
        commit.begin();
        try {
            forceWrittenOwningSync();
        } finally {
            commit.end();
        }
    }

    /**
     * Forces what is written, with the append lock and sync ownership held ({@link #forceWrittenNow},
     * {@link #roll}), and returns the tail now forced; a failure fails the log and rolls back the
     * unforced tail.
     */
    private Tail forceWrittenOwningSync() throws IOException {
        if (commit.failure() != null) {
            rollBack();
            commit.checkUsable();
        }
        Tail t = written;
        try {
            writer.force();
        } catch (IOException | RuntimeException | Error e) {
            forceFailed = true;
            IOException f = commit.fail(e, "sync of " + current.path + " failed");
            rollBack();
            throw f;
        }
        recordForced(t);
        return t;
    }

    /** Syncs the current segment, creates the next one and syncs the directory. Holds the append lock. */
    private void roll() throws IOException {
        commit.begin();
        try {
            Tail t = forceWrittenOwningSync();
            NewSegment next;
            try {
                next = createSegment(t.count());
            } catch (IOException | RuntimeException | Error e) {
                IOException f = commit.fail(e, "creating segment " + t.count() + " in " + dir + " failed");
                rollBack();
                throw f;
            }
            Segment[] old = segments;
            Segment[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = next.segment();
            segments = grown;
            seal(current, t.count(), writeEnd);
            closeQuietly(writer);
            current = next.segment();
            writer = next.writer();
            writeEnd = 0;
            Tail fresh = new Tail(t.count(), current, writer, 0);
            written = fresh;
            forcedTail = fresh;
        } finally {
            commit.end();
        }
    }

    /**
     * Writes the seal record of the segment just rolled past (forced, holding payloads up to
     * {@code end}), so that a start reads none of it (src/site/storage.md#what-a-start-reads). A
     * failure costs only a full check of that segment at the next start. The segment then keeps its
     * frame offsets itself, packed, and the position table lets go of them.
     */
    private void seal(Segment sealed, long end, long length) {
        long[] positions = new long[(int) (end - sealed.start)];
        try {
            for (int i = 0; i < positions.length; i++) {
                positions[i] = sealed.position(sealed.start + i, table);
            }
            SegmentRecovery.writeSealRecord(dir, sealed.start,
                    new SegmentRecovery.Checked(positions, List.copyOf(currentSides), length));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "no seal record for " + sealed.path + ": " + e);
        } finally {
            currentSides.clear();
        }
        sealed.keepPositions(positions);
        table.releaseBelow(end);
    }

    private record NewSegment(Segment segment, SegmentIo.WritableFile writer) {
    }

    /** Creates a segment file and forces it and the directory. */
    private NewSegment createSegment(long start) throws IOException {
        Path p = dir.resolve(Segment.fileName(start));
        Files.newByteChannel(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
        SegmentIo.WritableFile w = io.open(p);
        try {
            w.force();
            AtomicFile.forceDirectory(dir);
        } catch (IOException | RuntimeException | Error e) {
            closeQuietly(w);
            throw e;
        }
        return new NewSegment(new Segment(start, p, channels, 0), w);
    }

    /** The flusher's force: everything written so far. Called with sync ownership. */
    private long forceWritten() throws IOException {
        Tail t = written;
        try {
            t.writer().force();
        } catch (IOException | RuntimeException | Error e) {
            forceFailed = true;
            throw new IOException("sync of " + t.segment().path + " failed", e);
        }
        recordForced(t);
        return t.count();
    }

    /** After a successful force of {@code t}: the durable size advances and the forced-size file follows. */
    private void recordForced(Tail t) {
        forcedTail = t;
        commit.forced(t.count());
        try {
            forcedFile.recordForced(t.count());
        } catch (IOException | RuntimeException e) {
            // The file then lags behind the log, which recovery reads as "fewer acknowledged" (never a false alarm).
            LOG.log(System.Logger.Level.WARNING, "could not update " + forcedFile.path() + ": " + e);
        }
    }

    /**
     * After a failure, with the append lock and sync ownership: makes every group no waiter has
     * been told is durable absent from disk, then lets the waiters be answered (see the class
     * comment). Idempotent.
     */
    private void rollBack() {
        if (commit.settled()) {
            return;
        }
        Tail keep = forcedTail;
        try {
            Tail w = written;
            boolean cut = false;
            if (!forceFailed && w.segment() == current) {
                // Only a write failed (a full disk): cut its partial group; the complete groups before
                // it can still be made durable, and then their waiters succeed.
                try {
                    writer.truncate(w.end());
                    writer.force();
                    if (w.count() > keep.count()) {
                        recordForced(w);
                    }
                    keep = w;
                    cut = true;
                } catch (IOException | RuntimeException e) {
                    forceFailed = true;
                }
            }
            if (!cut) {
                // A force failed: what it covered may not be on disk. Back to the last successful force.
                if (keep.segment() != current) {
                    throw new IOException("the last forced group is not in the current segment");
                }
                writer.truncate(keep.end());
                writer.force();
            }
            writeEnd = keep.end();
        } catch (IOException | RuntimeException e) {
            try {
                forcedFile.recordFailure(keep.count());
            } catch (IOException | RuntimeException e2) {
                e.addSuppressed(e2);
                LOG.log(System.Logger.Level.ERROR, "log " + dir + " failed and could neither cut nor mark the "
                        + "groups it refused beyond payload " + keep.count() + "; they may reappear after a restart", e);
            }
        } finally {
            refusedFrom = keep.count();
            commit.settle();
        }
    }

    /**
     * Syncs the current segment and records the forced size (or, after a failure, finishes the
     * roll-back), refuses waiters not durable by then, and closes the files this side writes.
     * Idempotent.
     */
    synchronized void close() throws IOException {
        if (commit.closed()) {
            return;
        }
        commit.beginUninterruptibly();
        IOException err = null;
        try {
            if (commit.failure() == null && writer != null) {
                Tail t = written;
                try {
                    writer.force();
                } catch (IOException | RuntimeException e) {
                    forceFailed = true;
                    err = commit.fail(e, "sync of " + current.path + " at close failed");
                }
                if (err == null) {
                    forcedTail = t;
                    commit.forced(t.count());
                    forcedFile.closeClean(t.count());
                }
            }
            if (commit.failure() != null) {
                rollBack();
            }
        } catch (IOException e) {
            err = e;
        } finally {
            commit.close();
            commit.end();
            closeFiles();
        }
        if (err != null) {
            throw err;
        }
    }

    /** Closes what this side holds open, without forcing (after a failed open, or at close). */
    void closeFiles() {
        commit.close();
        closeQuietly(writer);
        if (forcedFile != null) {
            forcedFile.closeQuietly();
        }
    }

    private static void closeQuietly(SegmentIo.WritableFile f) {
        if (f != null) {
            try {
                f.close();
            } catch (IOException ignored) {
                // forced before, or the log failed: its state was decided then
            }
        }
    }
}
