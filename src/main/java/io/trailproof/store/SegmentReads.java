package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The read paths of the segment log: one payload, a sparse ascending walk, a sequential range, a
 * side record, the committed prefix of the files. Each checks every frame it returns through
 * {@link FrameCodec}. Callers check the indexes against the published size first; the positions
 * below it are then complete (see {@link PositionTable}) and every frame they name ends at or before
 * its segment's {@linkplain Segment#readableEnd readable end}.
 *
 * <p>Where the frames end is the readable end and nothing else: no read goes past it, and no read
 * takes the size of its own buffer or window for the end of the data. A frame larger than what
 * a buffer holds is read again whole (src/site/storage.md#readers-see-one-readable-size).
 * Thread-safe: every call has its own buffers.
 */
final class SegmentReads {
    /** Bytes read at once for a random read: the frame of a typical stored event fits. */
    private static final int FIRST_READ_BYTES = 2048;
    /** Bytes read at once by {@link #readEach} at most: many frames of a dense walk share one read. */
    private static final int READ_WINDOW_BYTES = 256 * 1024;
    /**
     * {@link #readEach} reads two frames in one read when the second starts at most this many bytes
     * after the first, and apart otherwise: copying the bytes between them (other agents' events)
     * would cost more than the system call it saves.
     */
    static final int COALESCE_GAP_BYTES = 8 * 1024;
    /**
     * Scans read through a buffer of at most this size. Not larger: an array over half a G1 region
     * (512 KB with the 1 MB regions of heaps under 2 GB) is a "humongous" allocation, and a scan runs
     * for every index follower step and every replayed batch answer; 256 KB is still one read for
     * hundreds of frames.
     */
    private static final int READ_BUFFER_BYTES = 256 << 10;

    private final PositionTable table;
    /** The log's current segments (a rewrite replaces the array). */
    private final Supplier<Segment[]> source;
    /** The maps of sealed segments that {@link #readEach} reads through. */
    private final ReadChannels channels;

    SegmentReads(PositionTable table, Supplier<Segment[]> source, ReadChannels channels) {
        this.table = table;
        this.source = source;
        this.channels = channels;
    }

    /**
     * After a {@link SegmentReplacedException}: waits (briefly: the rewrite renames one file and
     * publishes the new segment) until the log's segments no longer hold the retired one.
     */
    private Segment[] replaced(Segment[] stale) throws IOException {
        for (int i = 0; ; i++) {
            Segment[] now = source.get();
            if (now != stale) {
                return now;
            }
            if (i > 200_000) {
                throw new IOException("a segment rewrite did not finish");
            }
            if (i < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** A read of the segments as they are now; {@link SegmentReplacedException} when a rewrite replaced one. */
    @FunctionalInterface
    private interface SegmentsRead<T> {
        T read(Segment[] segs) throws IOException;
    }

    /**
     * Runs {@code read} on the current segments, and again on the new ones each time a rewrite
     * replaced a segment under it (src/site/storage.md#readers-see-one-readable-size).
     */
    private <T> T onCurrentSegments(SegmentsRead<T> read) throws IOException {
        Segment[] segs = source.get();
        while (true) {
            try {
                return read.read(segs);
            } catch (SegmentReplacedException e) {
                segs = replaced(segs);
            }
        }
    }

    /** The payload at {@code index}, read from its segment and checked. */
    byte[] read(long index) throws IOException {
        return onCurrentSegments(segs -> read(segs, index));
    }

    private byte[] read(Segment[] segs, long index) throws IOException {
        Segment seg = segs[segmentIndexOf(segs, index)];
        long pos = seg.position(index, table);
        long end = seg.readableEnd();
        // One read for the frame of a typical event (header and payload together); a larger
        // payload takes a second read for its rest, straight into the returned array.
        byte[] first = new byte[(int) Math.max(0, Math.min(FIRST_READ_BYTES, end - pos))];
        int got = seg.read(ByteBuffer.wrap(first), pos);
        if (got < FrameCodec.HEADER_BYTES) {
            throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
        }
        FrameCodec.Frame f = new FrameCodec.Frame();
        checkRecord(FrameCodec.header(first, 0, f), f, seg, pos, index);
        checkWithinEnd(f, seg, pos, end);
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

    /**
     * Visits the payloads at ascending {@code indexes}: those in sealed segments through the
     * segment's memory map (a copy of each frame, no system call: {@link MappedRegion}), those in the
     * segment being written through its channel, neighbouring frames sharing one read.
     */
    void readEach(long[] indexes, EventLog.PayloadVisitor visitor) throws IOException {
        int[] done = {0};   // a retry resumes with the first one not visited yet
        Segment[] mapped = {null};   // the segment whose map the walk reads
        try {
            onCurrentSegments(segs -> {
                readEach(segs, indexes, done, mapped, visitor);
                return null;
            });
        } catch (InternalError e) {
            // A read through a map whose file was cut from outside the service, reported on this
            // thread at or a little after the read (MappedRegion): a segment's, or a tree level's
            // read by the visitor.
            if (!MappedRegion.isMapFault(e)) {
                throw e;
            }
            Segment at = mapped[0] != null ? mapped[0] : source.get()[source.get().length - 1];
            CorruptLogException c = new CorruptLogException(at.path, 0, "a mapped file (this segment's or a tree"
                    + " level's) changed under its memory map during a walk (" + e.getMessage() + ")");
            c.initCause(e);
            throw c;
        }
    }

    private void readEach(Segment[] segs, long[] indexes, int[] done, Segment[] mapped,
                          EventLog.PayloadVisitor visitor) throws IOException {
        FrameCodec.Frame f = new FrameCodec.Frame();
        byte[] head = new byte[FrameCodec.HEADER_BYTES];
        MappedRegion map = null;
        Segment windowSegment = null;
        long windowStart = 0;
        byte[] window = null;
        int windowLength = 0;
        // The position windowReach found last for the index after its window: the next one read.
        long[] known = {-1, 0};
        for (; done[0] < indexes.length; done[0]++) {
            long index = indexes[done[0]];
            int si = segmentIndexOf(segs, index);
            Segment seg = segs[si];
            if (si + 1 < segs.length && seg.readableEnd() <= MappedRegion.MAX_BYTES) {
                // Sealed: its readable end is final and nothing writes or cuts its file. (A segment
                // larger than one map, made by a segment size set above 2 GiB, is read as the last one.)
                if (seg != mapped[0] || map == null) {
                    map = channels.map(seg);
                    mapped[0] = seg;
                }
                visitor.accept(index, mappedPayload(map, seg, index, head, f));
                continue;
            }
            long pos = known[0] == index ? known[1] : seg.position(index, table);
            if (seg != windowSegment || pos < windowStart || pos + FrameCodec.HEADER_BYTES > windowStart + windowLength) {
                windowSegment = seg;
                windowStart = pos;
                int want = (int) Math.max(0, Math.min(windowReach(seg, segs, si, indexes, done[0], pos, known),
                        seg.readableEnd() - pos));
                if (window == null) {
                    window = new byte[READ_WINDOW_BYTES];
                }
                windowLength = seg.read(ByteBuffer.wrap(window, 0, want), pos);
            }
            int at = (int) (pos - windowStart);
            int kind = FrameCodec.check(window, at, windowLength - at, f);
            if (kind == FrameCodec.SHORT) {
                if (windowLength - at < FrameCodec.HEADER_BYTES) {
                    throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
                }
                // A frame larger than what is left of the window: read alone, whole (not a damaged frame).
                visitor.accept(index, read(segs, index));
                continue;
            }
            checkRecord(kind, f, seg, pos, index);
            int p = at + FrameCodec.HEADER_BYTES;
            visitor.accept(index, Arrays.copyOfRange(window, p, p + f.length));
        }
    }

    /**
     * The payload at {@code index} of the sealed segment {@code seg}, copied out of its map
     * {@code map} and checked as {@link #read} checks it: the header and the CRC are checked on the
     * copy, so the bytes checked are the bytes returned.
     */
    private byte[] mappedPayload(MappedRegion map, Segment seg, long index, byte[] head, FrameCodec.Frame f)
            throws IOException {
        long pos = seg.position(index, table);
        long end = seg.readableEnd();
        if (pos < 0 || pos + FrameCodec.HEADER_BYTES > end) {
            throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
        }
        map.copy(pos, head, 0, FrameCodec.HEADER_BYTES);
        checkRecord(FrameCodec.header(head, 0, f), f, seg, pos, index);
        checkWithinEnd(f, seg, pos, end);
        byte[] payload = new byte[f.length];
        map.copy(pos + FrameCodec.HEADER_BYTES, payload, 0, f.length);
        if (FrameCodec.body(payload, 0, FrameCodec.storedCrc(head, 0), f) != FrameCodec.RECORD) {
            throw new CorruptLogException(seg.path, pos, f.problem);
        }
        return payload;
    }

    /**
     * How many bytes from {@code pos} (the frame of {@code indexes[i]} in {@code seg}, segment
     * {@code si} of {@code segs}) one read of {@link #readEach} takes: up to the end of the frame of
     * the last of the following indexes in the same segment that each start within
     * {@link #COALESCE_GAP_BYTES} of the one before and all within {@link #READ_WINDOW_BYTES}, so
     * that a sparse walk (one agent's events among many agents') reads a frame per event, neither a
     * whole window nor the events between. A frame's end is bounded by where the next payload's frame
     * starts when that is known (a sealed segment holds it), else by a typical frame's size. The
     * position it finds for the first index past the window is left in {@code known} (index,
     * position): the next read starts there.
     */
    private long windowReach(Segment seg, Segment[] segs, int si, long[] indexes, int i, long pos, long[] known)
            throws IOException {
        long segmentEnd = si + 1 < segs.length ? segs[si + 1].start : Long.MAX_VALUE;
        long last = indexes[i];
        long lastAt = pos;
        for (int j = i + 1; j < indexes.length && indexes[j] < segmentEnd; j++) {
            long at = seg.position(indexes[j], table);
            if (at - lastAt > COALESCE_GAP_BYTES || at - pos + FIRST_READ_BYTES > READ_WINDOW_BYTES) {
                known[0] = indexes[j];
                known[1] = at;
                break;
            }
            last = indexes[j];
            lastAt = at;
        }
        long frameEnd = lastAt + FIRST_READ_BYTES;
        if (last + 1 < segmentEnd && si + 1 < segs.length) {
            // Sealed: the next payload's frame starts after this one and any commit or side frames.
            long next = seg.position(last + 1, table);
            if (next > lastAt) {
                frameEnd = Math.min(frameEnd, next);
            }
        }
        return Math.min(frameEnd - pos, READ_WINDOW_BYTES);
    }

    /**
     * Visits payloads {@code [from, to)} in order, reading each segment sequentially; {@code size}
     * is the published log size the caller checked {@code to} against.
     */
    void scan(long size, long from, long to, EventLog.PayloadVisitor visitor) throws IOException {
        scanViews(size, from, to, (index, buf, offset, length) ->
                visitor.accept(index, Arrays.copyOfRange(buf, offset, offset + length)));
    }

    /**
     * As {@link #scan}, each payload a view of the scanner's buffer (see {@link EventLog#scanViews}).
     * {@code size} is the published log size the caller checked {@code to} against.
     */
    void scanViews(long size, long from, long to, EventLog.PayloadViewVisitor visitor) throws IOException {
        long[] next = {from};   // a retry resumes with the first one not visited yet
        onCurrentSegments(segs -> {
            scanViews(segs, size, next, to, visitor);
            return null;
        });
    }

    private void scanViews(Segment[] segs, long size, long[] next, long to, EventLog.PayloadViewVisitor visitor)
            throws IOException {
        long index = next[0];
        while (index < to) {
            int si = segmentIndexOf(segs, index);
            Segment seg = segs[si];
            long segEnd = si + 1 < segs.length ? Math.min(to, segs[si + 1].start) : to;
            long pos = seg.position(index, table);
            long end = seg.readableEnd();
            // Buffer sized to the bytes the span needs (small scans stay cheap), at most READ_BUFFER_BYTES:
            // they end where the payload after the span starts when it is in this segment, else at the
            // readable end. A frame larger than the buffer is read whole all the same (FrameScanner).
            boolean nextInSegment = segEnd < size && (si + 1 >= segs.length || segEnd < segs[si + 1].start);
            long spanEnd = nextInSegment ? seg.position(segEnd, table) : end;
            FrameScanner r = new FrameScanner(seg, end, (int) Math.max(0, Math.min(READ_BUFFER_BYTES, spanEnd - pos)));
            while (index < segEnd) {
                int kind = r.next(pos);
                if (kind == FrameCodec.BAD) {
                    throw new CorruptLogException(seg.path, pos, r.frame().problem);
                }
                if (kind != FrameCodec.RECORD) {   // a commit or side frame takes no index
                    pos += r.frame().frameBytes;
                    continue;
                }
                if (pos != seg.position(index, table)) {
                    throw new CorruptLogException(seg.path, pos, "frame of payload " + index
                            + " expected at offset " + seg.position(index, table));
                }
                visitor.accept(index, r.buffer(), r.payloadOffset(), r.frame().length);
                pos += r.frame().frameBytes;
                index++;
                next[0] = index;
            }
        }
    }

    /**
     * The segment files holding payloads {@code [0, size)}: every segment before the one holding
     * payload {@code size - 1} whole, that one up to the end of the commit frame of its group
     * (side frames of the group included). {@code size} must be a group's end: the commit frame
     * found must count exactly {@code size} payloads.
     */
    List<FilePrefix> committedFiles(long size) throws IOException {
        return onCurrentSegments(segs -> committedFiles(segs, size));
    }

    private List<FilePrefix> committedFiles(Segment[] segs, long size) throws IOException {
        List<FilePrefix> out = new ArrayList<>();
        if (size == 0) {
            return out;
        }
        int last = segmentIndexOf(segs, size - 1);
        for (int i = 0; i < last; i++) {
            out.add(new FilePrefix(segs[i].path, segs[i].path.getFileName().toString(), segs[i].readableEnd()));
        }
        Segment seg = segs[last];
        long pos = seg.position(size - 1, table);
        // From the last payload to its group's commit frame: side frames of any size may lie between.
        FrameScanner r = new FrameScanner(seg, seg.readableEnd(), 4096);
        while (true) {
            int kind = r.next(pos);
            if (kind == FrameCodec.BAD) {
                throw new CorruptLogException(seg.path, pos, r.frame().problem);
            }
            pos += r.frame().frameBytes;
            if (kind == FrameCodec.COMMIT) {
                if (r.frame().commitCount != size) {
                    throw new IllegalArgumentException("size " + size + " is not the end of a group (the group of payload "
                            + (size - 1) + " ends at " + r.frame().commitCount + ")");
                }
                break;
            }
        }
        out.add(new FilePrefix(seg.path, seg.path.getFileName().toString(), pos));
        return out;
    }

    /** The side records of the group of payload {@code size - 1} (see {@link EventLog#groupSides}). */
    List<byte[]> groupSides(long size) throws IOException {
        return onCurrentSegments(segs -> groupSides(segs, size));
    }

    private List<byte[]> groupSides(Segment[] segs, long size) throws IOException {
        List<byte[]> out = new ArrayList<>();
        Segment seg = segs[segmentIndexOf(segs, size - 1)];
        long pos = seg.position(size - 1, table);
        FrameScanner r = new FrameScanner(seg, seg.readableEnd(), 4096);
        while (true) {
            int kind = r.next(pos);
            if (kind == FrameCodec.BAD) {
                throw new CorruptLogException(seg.path, pos, r.frame().problem);
            }
            if (kind == FrameCodec.SIDE) {
                out.add(r.payloadCopy());
            }
            pos += r.frame().frameBytes;
            if (kind == FrameCodec.COMMIT) {
                if (r.frame().commitCount != size) {
                    throw new IllegalArgumentException("size " + size + " is not the end of a group (the group of payload "
                            + (size - 1) + " ends at " + r.frame().commitCount + ")");
                }
                return out;
            }
        }
    }

    /** The side frame at {@code address} ({@link FrameCodec#sideAddress}), read and checked. */
    byte[] readSide(long address) throws IOException {
        return onCurrentSegments(segs -> readSide(segs, address));
    }

    private byte[] readSide(Segment[] segs, long address) throws IOException {
        int ordinal = FrameCodec.addressSegment(address);
        long pos = FrameCodec.addressOffset(address);
        if (ordinal >= segs.length) {
            throw new CorruptLogException(segs[segs.length - 1].path, pos, "no segment " + ordinal + " for a side record");
        }
        Segment seg = segs[ordinal];
        long end = seg.readableEnd();
        byte[] head = new byte[FrameCodec.HEADER_BYTES];
        if (pos + FrameCodec.HEADER_BYTES > end || seg.read(ByteBuffer.wrap(head), pos) < FrameCodec.HEADER_BYTES) {
            throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
        }
        FrameCodec.Frame f = new FrameCodec.Frame();
        int kind = FrameCodec.header(head, 0, f);
        if (kind != FrameCodec.SIDE) {
            throw new CorruptLogException(seg.path, pos, kind == FrameCodec.BAD ? f.problem : "no side frame at this offset");
        }
        checkWithinEnd(f, seg, pos, end);
        byte[] payload = new byte[f.length];
        if (seg.read(ByteBuffer.wrap(payload), pos + FrameCodec.HEADER_BYTES) < f.length) {
            throw new CorruptLogException(seg.path, pos, "frame extends past end of file");
        }
        if (FrameCodec.body(payload, 0, FrameCodec.storedCrc(head, 0), f) != FrameCodec.SIDE) {
            throw new CorruptLogException(seg.path, pos, f.problem);
        }
        return payload;
    }

    /** A frame whose header was read must end at or before the readable end. */
    private static void checkWithinEnd(FrameCodec.Frame f, Segment seg, long pos, long end) throws CorruptLogException {
        if (pos + f.frameBytes > end) {
            throw new CorruptLogException(seg.path, pos, "frame of " + f.length + " bytes extends past the readable end "
                    + end);
        }
    }

    private static void checkRecord(int kind, FrameCodec.Frame f, Segment seg, long pos, long index)
            throws CorruptLogException {
        if (kind == FrameCodec.BAD) {
            throw new CorruptLogException(seg.path, pos, f.problem);
        }
        if (kind != FrameCodec.RECORD) {
            throw new CorruptLogException(seg.path, pos, "a commit or side frame where payload " + index + " was expected");
        }
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
}
