package io.trailproof.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The durable append-only segment log (CONTRACT 8), generic over opaque {@code byte[]} payloads so
 * that both the event log ({@code DIR/log/}) and the timestamp records ({@code DIR/timestamps/})
 * use it. This class is the facade; its parts are the frame format ({@link FrameCodec}), recovery
 * ({@link SegmentRecovery}), group commit ({@link GroupCommit}), the bounded read channels
 * ({@link ReadChannels}), the position table ({@link PositionTable}), the forced-size file
 * ({@link ForcedSizeFile}) and the write seam ({@link SegmentIo}).
 *
 * <h2>Files</h2>
 * {@code dir/NNNNNNNNNNNNNNNNNNNN.seg}: 20-digit zero-padded decimal index of the segment's first
 * payload, each a sequence of frames (layout on {@link FrameCodec}). An {@link #append} call (a
 * group) is written as its record frames followed by one commit frame, in one write call; the
 * commit frame records the log size after the group and the forced size when it was written.
 * Groups never span segments. {@code dir/forced-size} records the forced size after each force
 * ({@link ForcedSizeFile}).
 *
 * <h2>Recovery on open</h2>
 * Every frame of every segment is checked and the position table rebuilt. <em>Acknowledged</em>
 * below means forced to disk: the largest of the forced-size file's count and the forced sizes in
 * valid commit frames. Both are written only after the force they describe, so they never claim
 * more than is on disk.
 * <ul>
 *   <li><b>Cut silently</b> (counted in {@link #recoveredTailBytes}): at the end of the last
 *       segment, a bad frame (short, impossible length, bad CRC) or frames without their commit
 *       frame, when nothing acknowledged lies at or after the start of that group: no later valid
 *       commit frame records a forced size beyond it and the forced-size file does not cover it.
 *       This includes a never-forced group torn out of order by a power loss (a later commit frame
 *       intact, an earlier page zero). Also cut: groups beyond the count at which a failed log
 *       recorded that it refused everything after (see failures below).</li>
 *   <li><b>Acknowledged data lost</b> ({@link AcknowledgedDataLostException}, naming the file,
 *       offset and number of acknowledged payloads missing): such damage in a group that is
 *       acknowledged, or a log holding fewer payloads than the forced-size file records (a
 *       truncated log, a deleted last segment). Opened with {@code acceptTruncation}, the log is
 *       instead cut at the damaged group and opens, and {@link #acceptedLoss} says what was lost.
 *       The forced-size file is then rewritten for the log as it is, so the next open is clean.</li>
 *   <li><b>Corruption</b> ({@link CorruptLogException}): a bad or uncommitted frame in a segment
 *       that is not the last (it was forced before the next began), a commit frame whose count does
 *       not match the frames before it, a segment whose name does not match the payloads before
 *       it, and a bad frame followed by a valid commit frame of an earlier version (which records
 *       no forced size, so acknowledged data cannot be ruled out).</li>
 * </ul>
 * Nothing is changed on disk unless the whole log passed these checks. (Limit: the log checks
 * integrity, not authenticity. A payload replaced by one of the same length with a recomputed CRC
 * is accepted; the hash tree above detects that.)
 *
 * <h2>Atomicity, durability, failures, threads</h2>
 * <ul>
 *   <li>{@link #append} is atomic with respect to crashes (all of a group or none of it survives
 *       recovery) and is synchronized; on return the group is written to the OS and readable, not
 *       durable.</li>
 *   <li>{@link #awaitDurable} returns once the group is on disk ({@code fsync}); concurrent callers
 *       share one sync (group commit). Rolling to a new segment syncs the old segment and the
 *       directory first.</li>
 *   <li>If a write or a force fails the log enters a failed state and refuses every later append.
 *       Before any waiter is told its group failed, the log makes the refused groups absent: after
 *       a failed <em>write</em> (a full disk) it cuts the partial group and forces the complete
 *       groups before it, which then succeed; after a failed <em>force</em> it cuts the segment back
 *       to the last successful force. If even that cut fails, it records in the forced-size file
 *       that everything beyond the last force was refused, and recovery cuts it. So a group
 *       reported failed is absent after a restart, and a group reported durable is present.
 *       Payloads refused this way are unreadable. The log must be closed and reopened.</li>
 *   <li>Reads, {@link #size}, {@link #durableSize} and {@link #awaitDurable} may run concurrently
 *       with appends and with each other.</li>
 *   <li>Writes, forces and truncates go through {@link SegmentIo} (production: descriptors a thread
 *       interrupt cannot close); reads use at most {@code maxOpenReaders} channels, one interrupted
 *       reader never breaks reads for others.</li>
 * </ul>
 */
public final class SegmentLog implements EventLog {
    /** Default size at which the log rolls to a new segment: 64 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    /** Largest payload accepted; larger length words are "impossible" during recovery. */
    public static final int MAX_PAYLOAD_BYTES = FrameCodec.MAX_PAYLOAD_BYTES;
    /** File name suffix of segment files. */
    public static final String SEGMENT_SUFFIX = Segment.SUFFIX;
    /** Segment read channels open at once, at most (plus one per concurrent reader). */
    static final int DEFAULT_MAX_OPEN_READERS = 64;

    private static final System.Logger LOG = System.getLogger(SegmentLog.class.getName());
    /** Bytes read at once for a random read: the frame of a typical stored event fits. */
    private static final int FIRST_READ_BYTES = 2048;
    /** Bytes read at once by {@link #readEach}: many frames of a sparse walk share one read. */
    private static final int READ_WINDOW_BYTES = 256 * 1024;
    private static final int READ_BUFFER_BYTES = 1 << 20;

    /** The end of the last written (or forced) group: payload count, and where it ends in which file. */
    private record Tail(long count, Segment segment, SegmentIo.WritableFile writer, long end) {
    }

    private final Path dir;
    private final long segmentBytes;
    private final SegmentIo io;
    private final ReadChannels channels;
    private final PositionTable table;
    private final GroupCommit commit;

    // Published by volatile writes: table entries before size, size before written.
    private volatile Segment[] segments;
    private volatile long size;
    private volatile Tail written;
    /** Payloads from here on were refused when the log failed. */
    private volatile long refusedFrom = Long.MAX_VALUE;

    // Guarded by this (the append lock).
    private Segment current;
    private SegmentIo.WritableFile writer;
    private long writeEnd;

    // Changed with sync ownership (GroupCommit.begin).
    private volatile Tail forcedTail;
    private volatile boolean forceFailed;
    private ForcedSizeFile forcedFile;

    private final long recoveredTailBytes;
    private final Optional<String> acceptedLoss;

    private SegmentLog(Path dir, long segmentBytes, SegmentIo io, ReadChannels channels, PositionTable table,
                       SegmentRecovery.Result recovered) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.io = io;
        this.channels = channels;
        this.table = table;
        this.segments = recovered.segments().toArray(new Segment[0]);
        this.size = recovered.size();
        this.writeEnd = recovered.lastSegmentEnd();
        this.recoveredTailBytes = recovered.cutBytes();
        this.acceptedLoss = recovered.acceptedLoss();
        this.commit = new GroupCommit(dir, recovered.size(), new GroupCommit.Syncer() {
            @Override
            public long force() throws IOException {
                return forceWritten();
            }

            @Override
            public void settleFailure() {
                synchronized (SegmentLog.this) {
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

    /** Opens (recovering) or creates the log in {@code dir} with {@link #DEFAULT_SEGMENT_BYTES}. */
    public static SegmentLog open(Path dir) throws IOException {
        return open(dir, DEFAULT_SEGMENT_BYTES);
    }

    /** {@link #open(Path, long, boolean)} refusing to open when acknowledged data is missing. */
    public static SegmentLog open(Path dir, long segmentBytes) throws IOException {
        return open(dir, segmentBytes, false);
    }

    /**
     * Opens the log in {@code dir}, creating the directory and the first segment if needed, and
     * recovers it as described in the class comment. After return every payload in the log is
     * durable ({@code durableSize() == size()}).
     *
     * @param segmentBytes a new segment is started before a group once the current one has at least
     *     this many bytes
     * @param acceptTruncation open even when acknowledged payloads are missing (an operator's
     *     explicit choice): the log is cut at the damage and {@link #acceptedLoss} reports it
     * @throws AcknowledgedDataLostException if acknowledged payloads are missing and
     *     {@code acceptTruncation} is false (nothing is changed then)
     * @throws CorruptLogException if stored data fails its checks (nothing is changed then)
     */
    public static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation) throws IOException {
        return open(dir, segmentBytes, acceptTruncation, SegmentIo.FILES, DEFAULT_MAX_OPEN_READERS);
    }

    /** {@link #open(Path, long, boolean)} with the write seam and the read channel bound chosen (tests). */
    static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation, SegmentIo io, int maxOpenReaders)
            throws IOException {
        if (segmentBytes <= 0) {
            throw new IllegalArgumentException("segmentBytes must be positive: " + segmentBytes);
        }
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null) {
                AtomicFile.forceDirectory(parent);
            }
        }
        ReadChannels channels = new ReadChannels(maxOpenReaders);
        PositionTable table = new PositionTable();
        SegmentLog log;
        try {
            SegmentRecovery.Result recovered = SegmentRecovery.run(dir, io, channels, table, acceptTruncation);
            log = new SegmentLog(dir, segmentBytes, io, channels, table, recovered);
        } catch (IOException | RuntimeException | Error e) {
            channels.close();
            throw e;
        }
        try {
            log.start();
        } catch (IOException | RuntimeException | Error e) {
            log.closeFiles();
            throw e;
        }
        return log;
    }

    /** Opens the last segment for writing (creating the first if there is none) and makes everything found durable. */
    private synchronized void start() throws IOException {
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

    // ------------------------------------------------------------------ append

    /**
     * Appends the payloads as one group (record frames plus a commit frame, one write call) and
     * returns the index of the first. On return the group is readable but not durable; call
     * {@link #awaitDurable}. Payloads must be 1..{@link #MAX_PAYLOAD_BYTES} bytes; their content is
     * not interpreted. The list is not retained.
     *
     * @throws IOException if the log has failed or is closed, or the write fails (the log is then failed)
     */
    @Override
    public synchronized long append(List<byte[]> payloads) throws IOException {
        commit.checkUsable();
        int total = FrameCodec.groupBytes(payloads);
        if (writeEnd >= segmentBytes && writeEnd > 0) {
            roll();
        }
        int n = payloads.size();
        long first = size;
        table.reserve(first + n);   // before the group is on disk: running out of memory refuses it
        long[] offsets = new long[n];
        byte[] buf = FrameCodec.encodeGroup(payloads, total, first + n, commit.durable(), offsets);
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
        writeEnd += total;
        size = first + n;
        written = new Tail(first + n, current, writer, writeEnd);
        return first;
    }

    /** Syncs the current segment, creates the next one and syncs the directory. Holds the append lock. */
    private void roll() throws IOException {
        commit.begin();
        try {
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
        return new NewSegment(new Segment(start, p, channels), w);
    }

    // ------------------------------------------------------------------ durability and failure

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
     * Blocks until every payload below {@code endExclusive} is on disk; concurrent callers share one
     * sync.
     *
     * @throws IllegalArgumentException if {@code endExclusive > size()}
     * @throws IOException if the log has failed (or fails now) before the data became durable, or is
     *     closed; {@link InterruptedIOException} if interrupted while waiting
     */
    @Override
    public void awaitDurable(long endExclusive) throws IOException {
        CompletableFuture<Void> done = whenDurable(endExclusive);
        if (done.isDone() && !done.isCompletedExceptionally()) {
            return;
        }
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the log to sync");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof IOException io ? new IOException(io.getMessage(), io.getCause()) : new IOException(cause);
        }
    }

    @Override
    public CompletableFuture<Void> whenDurable(long endExclusive) {
        if (endExclusive > size) {
            throw new IllegalArgumentException("whenDurable(" + endExclusive + ") beyond size " + size);
        }
        return commit.whenDurable(endExclusive);
    }

    // ------------------------------------------------------------------ state

    @Override
    public long size() {
        return size;
    }

    @Override
    public long durableSize() {
        return commit.durable();
    }

    /** Number of syncs of segment files done by group commit and rolling (for tests and metrics). */
    public long forceCount() {
        return commit.forceCount();
    }

    /** Bytes of torn, uncommitted or refused tail cut off when this log was opened (0 if none); for logging. */
    public long recoveredTailBytes() {
        return recoveredTailBytes;
    }

    /**
     * When the log was opened with {@code acceptTruncation} and acknowledged payloads were missing:
     * one sentence naming the file, the offset and how many (for {@code /health} and the log).
     */
    public Optional<String> acceptedLoss() {
        return acceptedLoss;
    }

    /** The failure that stopped writes, or null. */
    public IOException failure() {
        return commit.failure();
    }

    /** The directory holding the segments. */
    public Path directory() {
        return dir;
    }

    /** Segment read channels open now (tests). */
    int openReadChannels() {
        return channels.openChannels();
    }

    // ------------------------------------------------------------------ reads

    @Override
    public byte[] read(long index) throws IOException {
        Objects.checkIndex(index, size);
        checkNotRefused(index + 1);
        long pos = table.get(index);
        Segment seg = segmentOf(index);
        // One read for the frame of a typical event (header and payload together); a larger
        // payload takes a second read for its rest, straight into the returned array.
        byte[] first = new byte[FIRST_READ_BYTES];
        int got = seg.read(ByteBuffer.wrap(first), pos);
        if (got < FrameCodec.HEADER_BYTES) {
            throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
        }
        FrameCodec.Frame f = new FrameCodec.Frame();
        checkRecordHeader(FrameCodec.header(first, 0, f), f, seg, pos, index);
        int len = f.length;
        byte[] payload = new byte[len];
        int have = Math.min(len, got - FrameCodec.HEADER_BYTES);
        System.arraycopy(first, FrameCodec.HEADER_BYTES, payload, 0, have);
        if (have < len && seg.read(ByteBuffer.wrap(payload, have, len - have), pos + FrameCodec.HEADER_BYTES + have)
                < len - have) {
            throw new CorruptLogException(seg.path, pos, "frame extends past end of file");
        }
        if (FrameCodec.body(payload, 0, FrameCodec.storedCrc(first, 0), f) != FrameCodec.RECORD) {
            throw new CorruptLogException(seg.path, pos, f.problem);
        }
        return payload;
    }

    private static void checkRecordHeader(int kind, FrameCodec.Frame f, Segment seg, long pos, long index)
            throws CorruptLogException {
        if (kind == FrameCodec.BAD) {
            throw new CorruptLogException(seg.path, pos, f.problem);
        }
        if (kind != FrameCodec.RECORD) {
            throw new CorruptLogException(seg.path, pos, "a commit frame where payload " + index + " was expected");
        }
    }

    @Override
    public void readEach(long[] ascendingIndexes, PayloadVisitor visitor) throws IOException {
        long s = size;
        FrameCodec.Frame f = new FrameCodec.Frame();
        Segment windowSegment = null;
        long windowStart = 0;
        byte[] window = new byte[READ_WINDOW_BYTES];
        int windowLength = 0;
        for (long index : ascendingIndexes) {
            Objects.checkIndex(index, s);
            checkNotRefused(index + 1);
            Segment seg = segmentOf(index);
            long pos = table.get(index);
            if (seg != windowSegment || pos < windowStart || pos + FrameCodec.HEADER_BYTES > windowStart + windowLength) {
                windowSegment = seg;
                windowStart = pos;
                windowLength = seg.read(ByteBuffer.wrap(window), pos);
            }
            int at = (int) (pos - windowStart);
            int kind = FrameCodec.check(window, at, windowLength - at, f);
            if (kind == FrameCodec.SHORT) {
                if (windowLength - at < FrameCodec.HEADER_BYTES) {
                    throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
                }
                visitor.accept(index, read(index));   // a frame larger than what is left of the window
                continue;
            }
            checkRecordHeader(kind, f, seg, pos, index);
            int p = at + FrameCodec.HEADER_BYTES;
            visitor.accept(index, Arrays.copyOfRange(window, p, p + f.length));
        }
    }

    @Override
    public void scan(long from, long to, PayloadVisitor visitor) throws IOException {
        long s = size;
        Objects.checkFromToIndex(from, to, s);
        checkNotRefused(to);
        Segment[] segs = segments;
        long index = from;
        while (index < to) {
            int si = segmentIndexOf(segs, index);
            Segment seg = segs[si];
            long segEnd = si + 1 < segs.length ? Math.min(to, segs[si + 1].start) : to;
            long pos = table.get(index);
            // Buffer sized to the span to read (small scans stay cheap), at most READ_BUFFER_BYTES.
            long span = table.get(segEnd - 1) - pos + 4096;
            FrameScanner r = new FrameScanner(seg, seg.size(), (int) Math.min(READ_BUFFER_BYTES, span));
            while (index < segEnd) {
                int kind = r.next(pos);
                if (kind == FrameCodec.BAD) {
                    throw new CorruptLogException(seg.path, pos, r.frame().problem);
                }
                if (kind == FrameCodec.COMMIT) {
                    pos += r.frame().frameBytes;
                    continue;
                }
                if (pos != table.get(index)) {
                    throw new CorruptLogException(seg.path, pos, "frame of payload " + index
                            + " expected at offset " + table.get(index));
                }
                visitor.accept(index, r.payloadCopy());
                pos += r.frame().frameBytes;
                index++;
            }
        }
    }

    private void checkNotRefused(long endExclusive) throws IOException {
        long refused = refusedFrom;
        if (endExclusive > refused) {
            throw new IOException("payloads from " + refused + " on were refused when the log failed ("
                    + commit.failure().getMessage() + ")");
        }
    }

    private Segment segmentOf(long index) {
        Segment[] segs = segments;
        return segs[segmentIndexOf(segs, index)];
    }

    private static int segmentIndexOf(Segment[] segs, long index) {
        int lo = 0;
        int hi = segs.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (segs[mid].start <= index) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    // ------------------------------------------------------------------ close

    /** Syncs the current segment, records the forced size and closes all files. Idempotent. */
    @Override
    public void close() throws IOException {
        synchronized (this) {
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
                        recordForced(t);
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
            }
            closeFiles();
            if (err != null) {
                throw err;
            }
        }
    }

    private void closeFiles() {
        commit.close();
        channels.close();
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
