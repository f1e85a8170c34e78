package io.trailproof.store;

import io.trailproof.background.Pacer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The durable append-only segment log (src/site/storage.md), generic over opaque {@code byte[]} payloads so
 * that both the event log ({@code DIR/log/}) and the timestamp records ({@code DIR/timestamps/})
 * use it. This class is the facade; its parts are the frame format ({@link FrameCodec}), recovery
 * ({@link SegmentRecovery}), the write side ({@link SegmentAppender}) with group commit
 * ({@link GroupCommit}) and the forced-size file ({@link ForcedSizeFile}), the read paths
 * ({@link SegmentReads}) over the bounded read channels ({@link ReadChannels}) and the position
 * table ({@link PositionTable}), and the write seam ({@link SegmentIo}).
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
 * Every frame of the last segment is checked and its position table rebuilt. A sealed segment
 * (one the log rolled past, forced before the next began) is taken from its seal record
 * ({@link SealRecord}) when the record agrees with it (first index and length): the start reads
 * nothing of it, takes its payload count from the record's head, its side records from the record
 * (during the open, or after it when opened by {@link #openLeavingSealedSides}), and reads its frame
 * offsets when it is first read (checking then that it still ends in the commit frame the record
 * names). A sealed segment without such a record is checked frame by frame, and the record is
 * written. A damaged frame inside a sealed segment taken from its record is found by the read that
 * reaches it ({@link CorruptLogException}, naming the file and offset), not by the open. <em>Acknowledged</em>
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

    private final Path dir;
    private final SegmentIo io;
    private final PositionTable table;
    private final ReadChannels channels;
    private final SegmentReads reads;
    private final SegmentAppender appender;
    private final GroupCommit commit;
    private final long recoveredTailBytes;
    private final Optional<String> acceptedLoss;
    private final long sealRecordBytes;
    /** Side records of sealed segments left for {@link #readSealedSides}; emptied by it. */
    private List<SegmentRecovery.SealedSides> sealedSides;
    private volatile long sealedSideBytes;

    private SegmentLog(Path dir, SegmentIo io, PositionTable table, ReadChannels channels, SegmentReads reads,
                       SegmentAppender appender, SegmentRecovery.Result recovered) {
        this.dir = dir;
        this.io = io;
        this.table = table;
        this.channels = channels;
        this.reads = reads;
        this.appender = appender;
        this.commit = appender.commit();
        this.recoveredTailBytes = recovered.cutBytes();
        this.acceptedLoss = recovered.acceptedLoss();
        this.sealRecordBytes = recovered.sealRecordBytes();
        this.sealedSides = recovered.sealedSides();
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
        return open(dir, segmentBytes, acceptTruncation, SideRecordVisitor.NONE);
    }

    /**
     * {@link #open(Path, long, boolean)}, handing every committed side record to {@code sides}
     * while the log is recovered (oldest first; before this method returns).
     */
    public static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation, SideRecordVisitor sides)
            throws IOException {
        return open(dir, segmentBytes, acceptTruncation, SegmentIo.FILES, DEFAULT_MAX_OPEN_READERS, sides);
    }

    /**
     * {@link #open(Path, long, boolean, SideRecordVisitor)} with the write seam chosen: production
     * passes {@link SegmentIo#FILES}; a test passes one that fails as a disk does.
     */
    public static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation, SegmentIo io,
                                  SideRecordVisitor sides) throws IOException {
        return open(dir, segmentBytes, acceptTruncation, io, DEFAULT_MAX_OPEN_READERS, sides);
    }

    /**
     * {@link #open(Path, long, boolean, SegmentIo, SideRecordVisitor)}, except that {@code sides} is
     * handed the side records of the last segment only: those of the sealed segments are left to
     * {@link #readSealedSides}, so that the open reads a fixed amount of each sealed segment's seal
     * record however many side records it holds (src/site/storage.md#what-a-start-reads).
     */
    public static SegmentLog openLeavingSealedSides(Path dir, long segmentBytes, boolean acceptTruncation, SegmentIo io,
                                                    SideRecordVisitor sides) throws IOException {
        return open(dir, segmentBytes, acceptTruncation, io, DEFAULT_MAX_OPEN_READERS, sides, true);
    }

    /** {@link #open(Path, long, boolean)} with the write seam and the read channel bound chosen (tests). */
    static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation, SegmentIo io, int maxOpenReaders)
            throws IOException {
        return open(dir, segmentBytes, acceptTruncation, io, maxOpenReaders, SideRecordVisitor.NONE);
    }

    private static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation, SegmentIo io,
                                   int maxOpenReaders, SideRecordVisitor sides) throws IOException {
        return open(dir, segmentBytes, acceptTruncation, io, maxOpenReaders, sides, false);
    }

    private static SegmentLog open(Path dir, long segmentBytes, boolean acceptTruncation, SegmentIo io,
                                   int maxOpenReaders, SideRecordVisitor sides, boolean sealedSidesLater)
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
        SegmentAppender appender = null;
        try {
            SegmentRewrite.discardUnfinished(dir);
            SegmentRecovery.Result recovered = SegmentRecovery.run(dir, io, channels, table, acceptTruncation, sides,
                    sealedSidesLater);
            appender = new SegmentAppender(dir, segmentBytes, io, channels, table, recovered);
            appender.start();
            return new SegmentLog(dir, io, table, channels, new SegmentReads(table, appender::segments, channels), appender,
                    recovered);
        } catch (IOException | RuntimeException | Error e) {
            if (appender != null) {
                appender.closeFiles();
            }
            channels.close();
            throw e;
        }
    }

    /**
     * After {@link #openLeavingSealedSides}: hands {@code sides} every committed side record of the
     * segments that were sealed at the open, oldest first (all of them before the last segment's,
     * which the open handed over). Any thread, once; a later call hands nothing. A seal record whose
     * side records are damaged makes this check that segment in full (and write its record again);
     * a fault found then is thrown ({@link CorruptLogException}, naming the file and offset).
     */
    public void readSealedSides(SideRecordVisitor sides) throws IOException {
        List<SegmentRecovery.SealedSides> pending;
        synchronized (this) {
            pending = sealedSides;
            sealedSides = List.of();
        }
        sealedSideBytes += SegmentRecovery.readSealedSides(dir, pending, sides);
    }

    // ------------------------------------------------------------------ writes

    /**
     * Appends the payloads as one group (record frames plus a commit frame, one write call) and
     * returns the index of the first. On return the group is readable but not durable; call
     * {@link #awaitDurable}. Payloads must be 1..{@link #MAX_PAYLOAD_BYTES} bytes; their content is
     * not interpreted. The list is not retained.
     *
     * @throws IOException if the log has failed or is closed, or the write fails (the log is then failed)
     */
    @Override
    public long append(List<byte[]> payloads) throws IOException {
        return appender.append(payloads, List.of()).first();
    }

    @Override
    public Appended append(List<byte[]> payloads, List<byte[]> sideRecords) throws IOException {
        return appender.append(payloads, sideRecords);
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
    public void forceWritten() throws IOException {
        appender.forceWrittenNow();
    }

    @Override
    public CompletableFuture<Void> whenDurable(long endExclusive) {
        return appender.whenDurable(endExclusive);
    }

    // ------------------------------------------------------------------ state

    @Override
    public long size() {
        return appender.size();
    }

    @Override
    public long durableSize() {
        return commit.durable();
    }

    @Override
    public void observeForces(ForceObserver observer) {
        commit.observe(observer);
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

    /** True once {@link #close} began. */
    public boolean closed() {
        return commit.closed();
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

    /** Sealed segments kept mapped now (tests). */
    int mappedSegments() {
        return channels.maps();
    }

    /** Bytes read from segment files since the log was opened, its recovery included (tests: what a start reads). */
    public long segmentBytesRead() {
        return channels.bytesRead();
    }

    /** Bytes of seal records read when the log was opened (tests: what a start reads). */
    public long sealRecordBytesRead() {
        return sealRecordBytes;
    }

    /** Side records of sealed segments left to {@link #readSealedSides} and not yet handed over. */
    public synchronized long sealedSidesLeft() {
        long n = 0;
        for (SegmentRecovery.SealedSides s : sealedSides) {
            n += s.sides() != null ? s.sides().size() : s.head().sideCount();
        }
        return n;
    }

    /** Bytes of seal records' side records read after the open by {@link #readSealedSides} (tests). */
    long sealedSideBytesRead() {
        return sealedSideBytes;
    }

    /** Sealed segments whose frame offsets are in memory now (tests: reads load only what they touch). */
    int sealedSegmentsLoaded() {
        Segment[] segs = appender.segments();
        int n = 0;
        for (int i = 0; i < segs.length - 1; i++) {
            n += segs[i].positionsLoaded() ? 1 : 0;
        }
        return n;
    }

    // ------------------------------------------------------------------ reads

    @Override
    public byte[] read(long index) throws IOException {
        Objects.checkIndex(index, appender.size());
        checkNotRefused(index + 1);
        return reads.read(index);
    }

    @Override
    public byte[] readSide(long address) throws IOException {
        return reads.readSide(address);
    }

    @Override
    public void readEach(long[] ascendingIndexes, PayloadVisitor visitor) throws IOException {
        long s = appender.size();
        long last = -1;
        for (long index : ascendingIndexes) {
            Objects.checkIndex(index, s);
            last = Math.max(last, index);
        }
        checkNotRefused(last + 1);
        reads.readEach(ascendingIndexes, visitor);
    }

    @Override
    public void scan(long from, long to, PayloadVisitor visitor) throws IOException {
        long size = appender.size();
        Objects.checkFromToIndex(from, to, size);
        checkNotRefused(to);
        reads.scan(size, from, to, visitor);
    }

    @Override
    public void scanViews(long from, long to, PayloadViewVisitor visitor) throws IOException {
        long size = appender.size();
        Objects.checkFromToIndex(from, to, size);
        checkNotRefused(to);
        reads.scanViews(size, from, to, visitor);
    }

    @Override
    public List<FilePrefix> committedFiles(long size) throws IOException {
        if (size < 0 || size > durableSize()) {
            throw new IllegalArgumentException("only durable payloads can be copied: " + size + " asked, "
                    + durableSize() + " durable");
        }
        checkNotRefused(size);
        return reads.committedFiles(size);
    }

    @Override
    public List<byte[]> groupSides(long size) throws IOException {
        if (size <= 0 || size > durableSize()) {
            throw new IllegalArgumentException("only the groups of durable payloads can be read: " + size + " asked, "
                    + durableSize() + " durable");
        }
        return reads.groupSides(size);
    }

    private void checkNotRefused(long endExclusive) throws IOException {
        long refused = appender.refusedFrom();
        if (endExclusive > refused) {
            throw new IOException("payloads from " + refused + " on were refused when the log failed ("
                    + commit.failure().getMessage() + ")");
        }
    }

    /**
     * Rewrites the segments holding the payloads replaced, one file at a time ({@link SegmentRewrite}).
     * Rewrites are serialised with each other; appends wait only for a roll when the segment being
     * appended to holds a replaced payload.
     */
    @Override
    public Rewritten rewrite(NavigableMap<Long, byte[]> replacements, SideRewriter sides)
            throws IOException {
        return rewrite(replacements, sides, StepProbe.NONE, Pacer.unpaced());
    }

    @Override
    public synchronized Rewritten rewrite(NavigableMap<Long, byte[]> replacements, SideRewriter sides,
                                          StepProbe probe, Pacer pacer) throws IOException {
        if (!replacements.isEmpty() && (replacements.firstKey() < 0 || replacements.lastKey() >= durableSize())) {
            throw new IllegalArgumentException("only durable payloads can be rewritten");
        }
        return SegmentRewrite.run(appender, channels, table, io, dir, replacements, sides, probe, pacer);
    }

    // ------------------------------------------------------------------ close

    /** Syncs the current segment, records the forced size and closes all files. Idempotent. */
    @Override
    public void close() throws IOException {
        try {
            appender.close();
        } finally {
            channels.close();
        }
    }
}
