package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Opens a log directory: checks every frame of the last segment, and of every sealed segment that
 * has no seal record agreeing with it ({@link SealRecord}), rebuilds the position table of the last
 * segment, and decides what an imperfect end of the log means (the rules are stated on
 * {@link SegmentLog}). The only changes it makes to the files are cutting the end of the last
 * segment, only after everything was checked, and writing missing seal records.
 */
final class SegmentRecovery {
    private static final System.Logger LOG = System.getLogger(SegmentRecovery.class.getName());
    private static final int READ_BUFFER_BYTES = 1 << 20;

    /**
     * The recovered log: its segments (possibly none), payload count, the valid length of the last
     * segment, bytes cut off its end, and the loss of acknowledged payloads the operator accepted.
     */
    record Result(List<Segment> segments, long size, long lastSegmentEnd, long cutBytes, Optional<String> acceptedLoss,
                  List<SealRecord.Side> lastSegmentSides, long sealRecordBytes, List<SealedSides> sealedSides) {
    }

    /**
     * Where the side records of a sealed segment are, when the open left them for later: its seal
     * record ({@code head}), or the list a full check of it found ({@code sides}).
     */
    record SealedSides(int ordinal, Segment segment, SealRecord.Head head, List<SealRecord.Side> sides) {
    }

    private final Path dir;
    private final SegmentIo io;
    private final ReadChannels channels;
    private final PositionTable table;
    private final boolean acceptTruncation;
    private final EventLog.SideRecordVisitor sides;
    /** When true, the side records of sealed segments are left to {@link #readSealedSides} after the open. */
    private final boolean sealedSidesLater;
    private final List<SealedSides> sealedSides = new ArrayList<>();
    private long size;
    /** Bytes of seal records read (the head and side records of each sealed segment). */
    private long sealRecordBytes;
    /** Side records of the last segment, for its seal record once the log rolls past it. */
    private final List<SealRecord.Side> lastSides = new ArrayList<>();
    /** Ordinal of the segment being scanned (its place in name order), for side frame addresses. */
    private int ordinal;

    private SegmentRecovery(Path dir, SegmentIo io, ReadChannels channels, PositionTable table, boolean acceptTruncation,
                            EventLog.SideRecordVisitor sides, boolean sealedSidesLater) {
        this.dir = dir;
        this.io = io;
        this.channels = channels;
        this.table = table;
        this.acceptTruncation = acceptTruncation;
        this.sides = sides;
        this.sealedSidesLater = sealedSidesLater;
    }

    /**
     * @param sealedSidesLater hand {@code sides} the side records of the last segment only, and leave
     *     those of the sealed segments to {@link #readSealedSides} (listed in the result); otherwise
     *     every side record is handed over during the open, oldest first
     */
    static Result run(Path dir, SegmentIo io, ReadChannels channels, PositionTable table, boolean acceptTruncation,
                      EventLog.SideRecordVisitor sides, boolean sealedSidesLater) throws IOException {
        return new SegmentRecovery(dir, io, channels, table, acceptTruncation, sides, sealedSidesLater).run();
    }

    /** Where the last segment stopped being a sequence of committed groups, and why. */
    private record Damage(long offset, String problem, boolean badFrame) {
    }

    private Result run() throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + Segment.SUFFIX)) {
            for (Path p : ds) {
                files.add(p);
            }
        }
        files.sort(null);
        Optional<ForcedSizeFile.State> side = ForcedSizeFile.read(dir);
        if (side.isEmpty() && ForcedSizeFile.exists(dir)) {
            LOG.log(System.Logger.Level.WARNING, "ignoring " + dir.resolve(ForcedSizeFile.NAME)
                    + ": neither copy is valid; acknowledged events are then checked against the commit frames only");
        }
        long forced = side.map(ForcedSizeFile.State::forced).orElse(0L);
        if (files.isEmpty()) {
            Optional<String> loss = forced > 0 ? Optional.of(lost(dir, 0, forced, "the log has no segment files")) : Optional.empty();
            return new Result(List.of(), 0, 0, 0, loss, List.of(), 0, List.of());
        }
        List<Segment> segments = new ArrayList<>();
        for (int i = 0; i < files.size() - 1; i++) {
            ordinal = i;
            segments.add(sealed(files.get(i)));
        }
        ordinal = files.size() - 1;
        Segment last = segment(files.get(files.size() - 1));
        segments.add(last);
        table.startAt(last.start);
        long refusedFrom = side.filter(ForcedSizeFile.State::failed).map(ForcedSizeFile.State::forced).orElse(-1L);
        if (refusedFrom >= 0 && refusedFrom < last.start) {
            throw new CorruptLogException(dir.resolve(ForcedSizeFile.NAME), 0, "records a failure at " + refusedFrom
                    + " payloads, before the last segment " + last.path.getFileName() + " begins");
        }
        return scanLast(segments, last, forced, refusedFrom);
    }

    private Segment segment(Path f) throws CorruptLogException {
        long start = Segment.parseStart(f);
        if (start != size) {
            throw new CorruptLogException(f, 0, "segment named for index " + start
                    + " but the segments before it hold " + size + " payloads");
        }
        return new Segment(start, f, channels, 0);   // readable end set once its frames are checked
    }

    /**
     * A segment before the last, sealed: the log forced it before the next one began. When its seal
     * record agrees with it (first index, length), the start takes the payload count from the record's
     * head and reads nothing of the segment: its frame offsets are read when it is first read, its
     * side records (when left for later) by {@link #readSealedSides} (src/site/storage.md#what-a-start-reads).
     * Otherwise every frame of it is checked, as for a log written before seal records, and the record
     * is written again.
     */
    private Segment sealed(Path f) throws IOException {
        long start = Segment.parseStart(f);
        if (start != size) {
            throw new CorruptLogException(f, 0, "segment named for index " + start
                    + " but the segments before it hold " + size + " payloads");
        }
        Optional<SealRecord.Head> head = SealRecord.readHead(dir, start);
        if (head.isPresent() && head.get().length() == Files.size(f) && head.get().length() > 0) {
            SealRecord.Head h = head.get();
            Optional<List<SealRecord.Side>> now = sealedSidesLater ? Optional.of(List.of()) : SealRecord.readSides(dir, h);
            if (now.isPresent()) {
                sealRecordBytes += h.bytesRead() + (sealedSidesLater || h.sides() != null ? 0 : h.sideBytes() + 4L);
                Segment s = new Segment(start, f, channels, seg -> positionsOf(dir, seg, h), h.length());
                if (sealedSidesLater) {
                    sealedSides.add(new SealedSides(ordinal, s, h, null));
                } else {
                    for (SealRecord.Side side : now.get()) {
                        sides.accept(FrameCodec.sideAddress(ordinal, side.offset()), side.payload());
                    }
                }
                size += h.count();
                return s;
            }
        }
        Segment s = new Segment(start, f, channels, 0);
        Checked c = checkSealed(s, s.fileSize());
        s.keepPositions(c.positions());
        s.publishEnd(c.length());
        if (sealedSidesLater) {
            sealedSides.add(new SealedSides(ordinal, s, null, c.sides()));
        } else {
            for (SealRecord.Side side : c.sides()) {
                sides.accept(FrameCodec.sideAddress(ordinal, side.offset()), side.payload());
            }
        }
        size += c.positions().length;
        writeSealRecord(dir, start, c);
        return s;
    }

    /**
     * Hands the side records of the sealed segments an open left for later to {@code visitor}, oldest
     * first, and returns the bytes of seal records read. A seal record whose side records are missing
     * or damaged (its head was checked at the open) makes the segment be checked in full, as at an
     * open, and the record be written again; a fault found then is thrown as at an open.
     */
    static long readSealedSides(Path dir, List<SealedSides> sealed, EventLog.SideRecordVisitor visitor)
            throws IOException {
        long read = 0;
        for (SealedSides s : sealed) {
            List<SealRecord.Side> found = s.sides();
            if (found == null) {
                Optional<List<SealRecord.Side>> fromRecord = SealRecord.readSides(dir, s.head());
                if (fromRecord.isPresent()) {
                    found = fromRecord.get();
                    read += s.head().sideBytes() + 4L;
                } else {
                    LOG.log(System.Logger.Level.WARNING, "the side records in the seal record of " + s.segment().path
                            + " are damaged or missing; checking the segment in full");
                    Checked c = checkSealed(s.segment(), s.head().length());
                    if (c.positions().length != s.head().count()) {
                        throw new CorruptLogException(s.segment().path, s.head().length(), "holds "
                                + c.positions().length + " payloads but " + s.head().count()
                                + " were counted for it when the log was opened");
                    }
                    writeSealRecord(dir, s.head().start(), c);
                    found = c.sides();
                }
            }
            for (SealRecord.Side side : found) {
                visitor.accept(FrameCodec.sideAddress(s.ordinal(), side.offset()), side.payload());
            }
        }
        return read;
    }

    /** What a full check of a sealed segment found: its frame offsets, side records and length. */
    record Checked(long[] positions, List<SealRecord.Side> sides, long length) {
    }

    /**
     * Checks every frame of a sealed segment (any fault in it is corruption: it was forced before
     * the next segment began) and returns what it holds.
     */
    static Checked checkSealed(Segment s, long fileSize) throws IOException {
        FrameScanner r = new FrameScanner(s, fileSize, READ_BUFFER_BYTES);
        long[] offsets = new long[1024];
        int records = 0;
        int committed = 0;
        List<SealRecord.Side> sides = new ArrayList<>();
        List<SealRecord.Side> pendingSides = new ArrayList<>();
        long pos = 0;
        while (pos < fileSize) {
            int kind = r.next(pos);
            FrameCodec.Frame f = r.frame();
            if (kind == FrameCodec.BAD) {
                throw new CorruptLogException(s.path, pos, f.problem + " in a segment that is not the last");
            }
            if (kind == FrameCodec.RECORD) {
                if (records == offsets.length) {
                    offsets = Arrays.copyOf(offsets, records * 2);
                }
                offsets[records++] = pos;
            } else if (kind == FrameCodec.SIDE) {
                pendingSides.add(new SealRecord.Side(pos, r.payloadCopy()));
            } else {
                long expected = s.start + records;
                if (f.commitCount != expected) {
                    throw new CorruptLogException(s.path, pos, "commit frame records log size " + f.commitCount
                            + " but " + expected + " payloads precede it");
                }
                committed = records;
                sides.addAll(pendingSides);
                pendingSides.clear();
            }
            pos += f.frameBytes;
        }
        if (records > committed || !pendingSides.isEmpty()) {
            long first = records > committed ? offsets[committed] : pendingSides.get(0).offset();
            throw new CorruptLogException(s.path, first, "uncommitted frames at the end of a segment that is not the last");
        }
        return new Checked(Arrays.copyOf(offsets, records), List.copyOf(sides), fileSize);
    }

    /**
     * A sealed segment's frame offsets, read when it is first read: from its seal record while the
     * segment still ends in a valid commit frame recording the count the record names; otherwise from
     * a full check of the segment (which must hold the same count), writing the record again.
     */
    static long[] positionsOf(Path dir, Segment seg, SealRecord.Head h) throws IOException {
        Optional<long[]> positions = SealRecord.readPositions(dir, h);
        if (positions.isPresent() && endsInCommit(seg, h.length(), h.start() + h.count())) {
            return positions.get();
        }
        LOG.log(System.Logger.Level.WARNING, "the seal record of " + seg.path + " does not match it; checking the segment in full");
        Checked c = checkSealed(seg, h.length());
        if (c.positions().length != h.count()) {
            throw new CorruptLogException(seg.path, h.length(), "holds " + c.positions().length + " payloads but "
                    + h.count() + " were counted for it when the log was opened");
        }
        writeSealRecord(dir, h.start(), c);
        return c.positions();
    }

    /** True when the segment's last bytes are a valid commit frame (either format) recording {@code count}. */
    private static boolean endsInCommit(Segment seg, long length, long count) throws IOException {
        FrameCodec.Frame f = new FrameCodec.Frame();
        for (int frameBytes : new int[] {FrameCodec.COMMIT_FRAME_BYTES,
                FrameCodec.HEADER_BYTES + FrameCodec.COMMIT_V1_PAYLOAD_BYTES}) {
            if (length < frameBytes) {
                continue;
            }
            byte[] b = new byte[frameBytes];
            int n = seg.read(ByteBuffer.wrap(b), length - frameBytes);
            if (n == frameBytes && FrameCodec.check(b, 0, n, f) == FrameCodec.COMMIT && f.frameBytes == frameBytes
                    && f.commitCount == count) {
                return true;
            }
        }
        return false;
    }

    /** Writes a seal record after a full check; a failure only costs the next start that check again. */
    static void writeSealRecord(Path dir, long start, Checked c) {
        try {
            SealRecord.write(dir, start, c.length(), c.positions(), c.sides());
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not write the seal record of segment " + start + " in " + dir
                    + " (the next start checks that segment in full): " + e);
        }
    }

    private Result scanLast(List<Segment> segments, Segment s, long forced, long refusedFrom) throws IOException {
        long fileSize = s.fileSize();
        FrameScanner r = new FrameScanner(s, fileSize, READ_BUFFER_BYTES);
        Pending pending = new Pending();
        long pos = 0;
        long lastCommitEnd = 0;
        Damage damage = null;
        while (pos < fileSize) {
            if (size == refusedFrom && pending.count == 0 && pending.sides.isEmpty()) {
                break;   // the log failed here and refused everything after (ForcedSizeFile)
            }
            int kind = r.next(pos);
            if (kind == FrameCodec.BAD) {
                damage = new Damage(pos, r.frame().problem, true);
                break;
            }
            pos = accept(s, r, pos, kind, pending);
            if (kind == FrameCodec.COMMIT) {
                lastCommitEnd = pos;
            }
        }
        if (damage == null && (pending.count > 0 || !pending.sides.isEmpty())) {
            damage = new Damage(lastCommitEnd, "uncommitted frames at the end of the log", false);
        }
        long acknowledged = forced;
        if (damage != null && damage.badFrame()) {
            acknowledged = Math.max(acknowledged, forcedAfter(s, damage, fileSize));
        }
        Optional<String> loss = Optional.empty();
        if (acknowledged > size) {
            long offset = damage != null ? damage.offset() : fileSize;
            String what = damage != null
                    ? damage.problem() + " in a group that was forced to disk (acknowledged)"
                    : "the log ends after " + size + " payloads but " + acknowledged + " were forced to disk (acknowledged)";
            loss = Optional.of(lost(s.path, offset, acknowledged - size, what));
        }
        long cut = 0;
        if (lastCommitEnd < fileSize) {
            try (SegmentIo.WritableFile w = io.open(s.path)) {
                w.truncate(lastCommitEnd);
                w.force();
            }
            cut = fileSize - lastCommitEnd;
        }
        s.publishEnd(lastCommitEnd);
        return new Result(segments, size, lastCommitEnd, cut, loss, List.copyOf(lastSides), sealRecordBytes,
                List.copyOf(sealedSides));
    }

    /** Refuses to open, or (accepted by the operator) describes the loss in one sentence. */
    private String lost(Path file, long offset, long missing, String what) throws AcknowledgedDataLostException {
        AcknowledgedDataLostException e = new AcknowledgedDataLostException(file, offset, missing, what);
        if (!acceptTruncation) {
            throw e;
        }
        String sentence = missing + " acknowledged event" + (missing == 1 ? " is" : "s are") + " missing from the log: "
                + what + " in " + file + " at offset " + offset + "; the log was opened without them because "
                + "truncation was accepted (--accept-truncation)";
        LOG.log(System.Logger.Level.ERROR, sentence);
        return sentence;
    }

    /**
     * The largest forced size recorded by a valid commit frame after the damage (found by a
     * byte-by-byte search, since frame boundaries after damage are unknown), or 0. A valid commit
     * frame of an earlier version there (no forced size) leaves no way to tell a torn tail from
     * damaged acknowledged data: corruption, as before.
     */
    private long forcedAfter(Segment s, Damage damage, long fileSize) throws IOException {
        byte[] buf = new byte[READ_BUFFER_BYTES];
        FrameCodec.Frame f = new FrameCodec.Frame();
        long most = 0;
        long base = damage.offset() + 1;
        while (base + FrameCodec.HEADER_BYTES < fileSize) {
            int n = s.read(ByteBuffer.wrap(buf, 0, (int) Math.min(buf.length, fileSize - base)), base);
            for (int i = 0; i + FrameCodec.HEADER_BYTES <= n; i++) {
                if (FrameCodec.isCommitWord(buf, i) && FrameCodec.check(buf, i, n - i, f) == FrameCodec.COMMIT
                        && f.commitCount > size) {
                    if (f.forcedSize == FrameCodec.FORCED_UNKNOWN) {
                        throw new CorruptLogException(s.path, damage.offset(), damage.problem()
                                + ", followed by a valid commit frame at offset " + (base + i)
                                + " (committed data is damaged; not a torn tail)");
                    }
                    most = Math.max(most, f.forcedSize);
                }
            }
            if (base + n >= fileSize || n < FrameCodec.COMMIT_FRAME_BYTES) {
                break;
            }
            base += n - (FrameCodec.COMMIT_FRAME_BYTES - 1);
        }
        return most;
    }

    /**
     * Takes a checked frame: a record or side frame waits for its commit; a commit publishes its
     * group (records into the position table, side records to the visitor). Returns the next offset.
     */
    private long accept(Segment s, FrameScanner r, long pos, int kind, Pending pending) throws IOException {
        FrameCodec.Frame f = r.frame();
        if (kind == FrameCodec.RECORD) {
            pending.add(pos);
        } else if (kind == FrameCodec.SIDE) {
            pending.sides.add(new SideFrame(FrameCodec.sideAddress(ordinal, pos), r.payloadCopy()));
            if (pending.count == 0 && pending.sides.size() == 1) {
                pending.sideOnlyStart = pos;
            }
        } else {
            long expected = size + pending.count;
            if (f.commitCount != expected) {
                throw new CorruptLogException(s.path, pos, "commit frame records log size " + f.commitCount
                        + " but " + expected + " payloads precede it");
            }
            table.reserve(expected);
            for (int i = 0; i < pending.count; i++) {
                table.set(size + i, pending.offsets[i]);
            }
            size = expected;
            pending.count = 0;
            for (SideFrame side : pending.sides) {
                sides.accept(side.address(), side.payload());
                lastSides.add(new SealRecord.Side(FrameCodec.addressOffset(side.address()), side.payload()));
            }
            pending.sides.clear();
        }
        return pos + f.frameBytes;
    }

    private record SideFrame(long address, byte[] payload) {
    }

    /** Record and side frames of the group being read, not yet committed. */
    private static final class Pending {
        long[] offsets = new long[64];
        int count;
        final List<SideFrame> sides = new ArrayList<>();
        /** Offset of the first side frame of a group that has no record frame. */
        long sideOnlyStart;

        void add(long offset) {
            if (count == offsets.length) {
                offsets = Arrays.copyOf(offsets, count * 2);
            }
            offsets[count++] = offset;
        }

        long firstOffset() {
            return count > 0 ? offsets[0] : sideOnlyStart;
        }
    }
}
