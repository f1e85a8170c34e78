package io.trailproof.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.RandomAccessFile;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.zip.CRC32C;

/**
 * The durable append-only segment log (CONTRACT 8), generic over opaque {@code byte[]} payloads so
 * that both the event log ({@code DIR/log/}) and the timestamp records ({@code DIR/timestamps/})
 * use it.
 *
 * <h2>Files</h2>
 * {@code dir/NNNNNNNNNNNNNNNNNNNN.seg}: 20-digit zero-padded decimal index of the segment's first
 * payload. Each file is a sequence of frames
 * <pre>
 *   [length word: 4 bytes big-endian][CRC32C of payload: 4 bytes big-endian][payload]
 * </pre>
 * The <b>frame type is encoded in the length word</b>, never guessed from the payload:
 * <ul>
 *   <li>record frame: bit 31 clear, bits 0..30 = payload length, {@code 1..MAX_PAYLOAD_BYTES};
 *       the payload is opaque (any bytes, including ones that look like a commit payload);</li>
 *   <li>commit frame: length word exactly {@code 0x80000009} (bit 31 set, length 9) and a payload of
 *       {@code 'C'} (0x43) followed by 8 bytes big-endian = log size (number of payloads) after the
 *       group. A frame with bit 31 set and any other length, or without the 'C' marker, is a bad
 *       frame.</li>
 * </ul>
 * The CRC covers the payload only; the type bit is cross-checked by the fixed commit length, the
 * 'C' marker and the running count each commit frame carries, so a damaged commit frame is never
 * mistaken for a valid one.
 * An {@link #append} call (a group) is written as its record frames followed by one commit frame, in
 * one write call. Groups never span segments.
 *
 * <h2>Recovery on open</h2>
 * Every frame of every segment is checked (length, CRC, commit counts) and the index table is
 * rebuilt. In the <em>last</em> segment, a bad frame (short read, impossible length, bad CRC) that
 * has no valid commit frame anywhere after it, and valid frames after the last commit frame, form
 * a torn or uncommitted tail: the file is truncated to the end of the last commit frame and forced.
 * Everything else is {@link CorruptLogException} naming the file and offset: a bad frame followed
 * (anywhere, found by a byte-by-byte search) by a valid commit frame, a bad or uncommitted frame in
 * a segment that is not the last, a commit frame whose count does not match the frames before it,
 * or a segment whose name does not match the count of payloads before it. Committed data is never
 * dropped silently. (Limit: the log checks integrity, not authenticity. A payload replaced by one
 * of the same length with a recomputed CRC is accepted; the hash tree above detects that.)
 *
 * <h2>Atomicity, durability, threads</h2>
 * <ul>
 *   <li>{@link #append} is atomic with respect to crashes (all of a group or none of it survives
 *       recovery) and is synchronized; on return the group is written to the OS and readable, not
 *       durable.</li>
 *   <li>{@link #awaitDurable} returns once the group is on disk ({@code fsync}); concurrent callers
 *       share one sync (group commit). Rolling to a new segment syncs the old segment and the
 *       directory first.</li>
 *   <li>If writing or syncing fails the log enters a failed state: every later append, and every
 *       await for data that is not yet durable, throws an {@link IOException} carrying the
 *       original cause. The log must then be closed and reopened (recovery decides what
 *       survived).</li>
 *   <li>{@link #read}, {@link #scan}, {@link #size}, {@link #durableSize} and {@link #awaitDurable}
 *       may run concurrently with appends and with each other.</li>
 *   <li>Writes and syncs use {@link RandomAccessFile} descriptors, which thread interrupts cannot
 *       close; reads use a per-segment {@link FileChannel} that is reopened if an interrupted
 *       reader closed it. An interrupt therefore never breaks the log for other threads.</li>
 * </ul>
 */
public final class SegmentLog implements EventLog {
    /** Default size at which the log rolls to a new segment: 64 MiB. */
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;
    /** Largest payload accepted; larger length words are "impossible" during recovery. */
    public static final int MAX_PAYLOAD_BYTES = 64 << 20;
    /** File name suffix of segment files. */
    public static final String SEGMENT_SUFFIX = ".seg";

    static final int HEADER_BYTES = 8;
    /** Bytes read at once for a random read: the frame of a typical stored event fits. */
    private static final int FIRST_READ_BYTES = 2048;
    /** Bytes read at once by {@link #readEach}: many frames of a sparse walk share one read. */
    private static final int READ_WINDOW_BYTES = 256 * 1024;
    static final int COMMIT_FLAG = 0x8000_0000;
    static final int COMMIT_PAYLOAD_BYTES = 9;
    static final int COMMIT_LENGTH_WORD = COMMIT_FLAG | COMMIT_PAYLOAD_BYTES;
    static final byte COMMIT_MARKER = 'C';
    static final int COMMIT_FRAME_BYTES = HEADER_BYTES + COMMIT_PAYLOAD_BYTES;
    private static final int READ_BUFFER_BYTES = 1 << 20;
    private static final long MAX_GROUP_BYTES = Integer.MAX_VALUE - 64;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final Path dir;
    private final long segmentBytes;

    // Index table: positions[i] = file offset of payload i's frame in its segment. Published by the
    // volatile write of size after the entries are written (readers read size first).
    private volatile long[] positions = new long[1024];
    private volatile Segment[] segments = new Segment[0];
    private volatile long size;

    // Guarded by this (the append lock).
    private Segment current;
    private long writeEnd;

    // Group commit. Guarded by syncLock.
    private final Object syncLock = new Object();
    private boolean syncing;
    private final List<Waiter> waiters = new ArrayList<>();
    private Thread flusher;
    private long forceCount;
    private volatile long durable;
    private volatile IOException failure;
    private volatile boolean closed;
    private long recoveredTailBytes;

    private SegmentLog(Path dir, long segmentBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
    }

    /** Opens (recovering) or creates the log in {@code dir} with {@link #DEFAULT_SEGMENT_BYTES}. */
    public static SegmentLog open(Path dir) throws IOException {
        return open(dir, DEFAULT_SEGMENT_BYTES);
    }

    /**
     * Opens the log in {@code dir}, creating the directory and the first segment if needed, and
     * recovers it as described in the class comment. After return every payload in the log is
     * durable ({@code durableSize() == size()}).
     *
     * @param segmentBytes a new segment is started before a group once the current one has at least
     *     this many bytes
     * @throws CorruptLogException if committed data fails its checks (nothing is changed then)
     */
    public static SegmentLog open(Path dir, long segmentBytes) throws IOException {
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
        SegmentLog log = new SegmentLog(dir, segmentBytes);
        try {
            log.recover();
        } catch (IOException | RuntimeException | Error e) {
            log.closeFiles(e);
            throw e;
        }
        return log;
    }

    // ------------------------------------------------------------------ recovery

    private void recover() throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SEGMENT_SUFFIX)) {
            for (Path p : ds) {
                files.add(p);
            }
        }
        files.sort(null);
        if (files.isEmpty()) {
            Segment s = createSegment(0);
            current = s;
            writeEnd = 0;
            return;
        }
        for (int i = 0; i < files.size(); i++) {
            Path f = files.get(i);
            long start = parseStart(f);
            if (start != size) {
                throw new CorruptLogException(f, 0, "segment named for index " + start
                        + " but the segments before it hold " + size + " payloads");
            }
            Segment s = new Segment(start, f);
            addSegment(s);
            boolean last = i == files.size() - 1;
            long end = scanSegment(s, last);
            if (last) {
                s.openWriter();
                current = s;
                writeEnd = end;
                s.writer.getFD().sync();   // data found in the page cache is durable from here on
            }
        }
        durable = size;
    }

    private static long parseStart(Path f) throws CorruptLogException {
        String name = f.getFileName().toString();
        String digits = name.substring(0, name.length() - SEGMENT_SUFFIX.length());
        if (digits.length() != 20 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new CorruptLogException(f, 0, "unexpected segment file name");
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new CorruptLogException(f, 0, "unexpected segment file name");
        }
    }

    /** Checks every frame of one segment, appends its committed frames to the table; returns its valid end. */
    private long scanSegment(Segment s, boolean last) throws IOException {
        long fileSize = s.reader.size();
        FrameReader r = new FrameReader(s, fileSize, READ_BUFFER_BYTES);
        long pos = 0;
        long lastCommitEnd = 0;
        long[] pending = new long[64];
        int pendingCount = 0;
        while (pos < fileSize) {
            int kind = r.parse(pos);
            if (kind == FrameReader.BAD) {
                if (!last) {
                    throw new CorruptLogException(s.path, pos, r.problem + " in a segment that is not the last");
                }
                long commitAfter = findCommitFrame(s, pos + 1, fileSize);
                if (commitAfter >= 0) {
                    throw new CorruptLogException(s.path, pos, r.problem + ", followed by a valid commit frame at offset "
                            + commitAfter + " (committed data is damaged; not a torn tail)");
                }
                return cutTail(s, lastCommitEnd, fileSize);
            }
            if (kind == FrameReader.RECORD) {
                if (pendingCount == pending.length) {
                    pending = Arrays.copyOf(pending, pendingCount * 2);
                }
                pending[pendingCount++] = pos;
                pos += HEADER_BYTES + r.length;
            } else {
                long expected = size + pendingCount;
                if (r.commitCount != expected) {
                    throw new CorruptLogException(s.path, pos, "commit frame records log size " + r.commitCount
                            + " but " + expected + " payloads precede it");
                }
                publish(pending, pendingCount);
                pendingCount = 0;
                pos += COMMIT_FRAME_BYTES;
                lastCommitEnd = pos;
            }
        }
        if (pendingCount > 0) {
            if (!last) {
                throw new CorruptLogException(s.path, lastCommitEnd, "uncommitted frames at the end of a segment that is not the last");
            }
            return cutTail(s, lastCommitEnd, fileSize);
        }
        return pos;
    }

    private long cutTail(Segment s, long validEnd, long fileSize) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(s.path.toFile(), "rw")) {
            raf.setLength(validEnd);
            raf.getFD().sync();
        }
        recoveredTailBytes += fileSize - validEnd;
        return validEnd;
    }

    /** Byte-by-byte search for a frame that is a valid commit frame; returns its offset or -1. */
    private long findCommitFrame(Segment s, long from, long fileSize) throws IOException {
        byte[] buf = new byte[READ_BUFFER_BYTES];
        CRC32C crc = new CRC32C();
        long base = from;
        while (base + COMMIT_FRAME_BYTES <= fileSize) {
            int n = (int) Math.min(buf.length, fileSize - base);
            n = s.readFully(ByteBuffer.wrap(buf, 0, n), base);
            for (int i = 0; i + COMMIT_FRAME_BYTES <= n; i++) {
                if ((int) INT.get(buf, i) == COMMIT_LENGTH_WORD && buf[i + HEADER_BYTES] == COMMIT_MARKER) {
                    crc.reset();
                    crc.update(buf, i + HEADER_BYTES, COMMIT_PAYLOAD_BYTES);
                    if ((int) crc.getValue() == (int) INT.get(buf, i + 4)) {
                        return base + i;
                    }
                }
            }
            if (base + n >= fileSize || n < COMMIT_FRAME_BYTES) {
                break;
            }
            base += n - (COMMIT_FRAME_BYTES - 1);
        }
        return -1;
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
        checkUsable();
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("empty group");
        }
        long total = COMMIT_FRAME_BYTES;
        for (byte[] p : payloads) {
            Objects.requireNonNull(p, "payload");
            if (p.length == 0 || p.length > MAX_PAYLOAD_BYTES) {
                throw new IllegalArgumentException("payload length " + p.length + " not in 1.." + MAX_PAYLOAD_BYTES);
            }
            total += HEADER_BYTES + p.length;
        }
        if (total > MAX_GROUP_BYTES) {
            throw new IllegalArgumentException("group too large: " + total + " bytes");
        }
        if (writeEnd >= segmentBytes && writeEnd > 0) {
            roll();
        }
        int n = payloads.size();
        long first = size;
        long[] framePositions = new long[n];
        byte[] buf = new byte[(int) total];
        CRC32C crc = new CRC32C();
        int o = 0;
        for (int i = 0; i < n; i++) {
            byte[] p = payloads.get(i);
            framePositions[i] = writeEnd + o;
            crc.reset();
            crc.update(p, 0, p.length);
            INT.set(buf, o, p.length);
            INT.set(buf, o + 4, (int) crc.getValue());
            System.arraycopy(p, 0, buf, o + HEADER_BYTES, p.length);
            o += HEADER_BYTES + p.length;
        }
        INT.set(buf, o, COMMIT_LENGTH_WORD);
        buf[o + HEADER_BYTES] = COMMIT_MARKER;
        LONG.set(buf, o + HEADER_BYTES + 1, first + n);
        crc.reset();
        crc.update(buf, o + HEADER_BYTES, COMMIT_PAYLOAD_BYTES);
        INT.set(buf, o + 4, (int) crc.getValue());
        try {
            current.writer.seek(writeEnd);
            current.writer.write(buf);
        } catch (IOException | RuntimeException | Error e) {
            throw fail(e, "write to " + current.path + " failed");
        }
        writeEnd += total;
        publish(framePositions, n);
        return first;
    }

    /** Adds table entries and then publishes the new size (the order readers rely on). */
    private void publish(long[] framePositions, int n) {
        long s = size;
        long[] table = positions;
        if (s + n > table.length) {
            long want = Math.max(table.length * 2L, s + n);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("log index table full");
            }
            table = Arrays.copyOf(table, (int) want);
        }
        System.arraycopy(framePositions, 0, table, (int) s, n);
        positions = table;
        size = s + n;
    }

    /** Syncs the current segment, creates the next one and syncs the directory. Holds the append lock. */
    private void roll() throws IOException {
        beginSync();
        try {
            long s = size;
            try {
                current.writer.getFD().sync();
            } catch (IOException | RuntimeException | Error e) {
                throw fail(e, "sync of " + current.path + " failed");
            }
            countForce(s);
            Segment next;
            try {
                next = createSegment(s);
            } catch (IOException | RuntimeException | Error e) {
                throw fail(e, "creating segment " + s + " in " + dir + " failed");
            }
            Segment old = current;
            current = next;
            writeEnd = 0;
            old.closeWriter();
        } finally {
            endSync();
        }
    }

    private Segment createSegment(long start) throws IOException {
        Path p = dir.resolve(String.format("%020d", start) + SEGMENT_SUFFIX);
        Files.newByteChannel(p, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
        Segment s = new Segment(start, p);
        try {
            s.openWriter();
            s.writer.getFD().sync();
            AtomicFile.forceDirectory(dir);
        } catch (IOException | RuntimeException | Error e) {
            s.close();
            throw e;
        }
        addSegment(s);
        return s;
    }

    private void addSegment(Segment s) {
        Segment[] old = segments;
        Segment[] next = Arrays.copyOf(old, old.length + 1);
        next[old.length] = s;
        segments = next;
    }

    // ------------------------------------------------------------------ durability

    /**
     * Blocks until every payload below {@code endExclusive} is on disk. If another thread is
     * syncing, waits for it and re-checks; otherwise syncs the current segment itself (older
     * segments were synced when the log rolled), so concurrent callers share one sync.
     *
     * @throws IllegalArgumentException if {@code endExclusive > size()}
     * @throws IOException if the log has failed (or fails now) before the data became durable,
     *     or is closed; {@link InterruptedIOException} if interrupted while waiting
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

    private static final CompletableFuture<Void> DURABLE = CompletableFuture.completedFuture(null);

    @Override
    public CompletableFuture<Void> whenDurable(long endExclusive) {
        if (endExclusive > size) {
            throw new IllegalArgumentException("whenDurable(" + endExclusive + ") beyond size " + size);
        }
        if (durable >= endExclusive) {
            return DURABLE;
        }
        Waiter waiter = new Waiter(endExclusive, new CompletableFuture<>());
        synchronized (syncLock) {
            if (durable >= endExclusive) {
                return DURABLE;
            }
            try {
                checkUsable();
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
            waiters.add(waiter);
            if (flusher == null) {
                flusher = Thread.ofPlatform().daemon().name("trailproof-sync-" + dir.getFileName()).start(this::flushLoop);
            }
            syncLock.notifyAll();
        }
        return waiter.done();
    }

    /**
     * The flusher: while anyone waits, syncs the current segment and releases every waiter the sync
     * covered. Each waiter parks on its own future, so a sync wakes exactly the threads it made
     * durable (no herd contending for one monitor), and everyone waiting during a sync shares the next.
     */
    private void flushLoop() {
        while (true) {
            synchronized (syncLock) {
                while ((waiters.isEmpty() || syncing) && !closed && failure == null) {
                    try {
                        syncLock.wait();
                    } catch (InterruptedException e) {
                        // only close stops the flusher
                    }
                }
                if (closed || failure != null) {
                    releaseWaiters();
                    return;
                }
                syncing = true;
            }
            long s = size;            // captured BEFORE choosing the segment (see roll)
            Segment seg = currentForSync();
            try {
                seg.writer.getFD().sync();
                countForce(s);
            } catch (IOException | RuntimeException | Error e) {
                fail(e, "sync of " + seg.path + " failed");
            } finally {
                endSync();
            }
        }
    }

    /** Completes the waiters that are durable now; when the log failed or closed, fails the others. */
    private void releaseWaiters() {
        List<Waiter> ready = new ArrayList<>();
        List<Waiter> refused = new ArrayList<>();
        synchronized (syncLock) {
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (w.end() <= durable) {
                    ready.add(w);
                    it.remove();
                } else if (failure != null || closed) {
                    refused.add(w);
                    it.remove();
                }
            }
        }
        ready.forEach(w -> w.done().complete(null));
        IOException why = failure != null ? failure : new ClosedChannelException();
        refused.forEach(w -> w.done().completeExceptionally(why));
    }

    /** A thread waiting for the log to be durable up to {@code end}. */
    private record Waiter(long end, CompletableFuture<Void> done) {
    }

    /** The segment holding the newest written data; read without the append lock. */
    private Segment currentForSync() {
        Segment[] segs = segments;
        return segs[segs.length - 1];
    }

    private void beginSync() throws IOException {
        synchronized (syncLock) {
            while (syncing) {
                waitForSync();
            }
            syncing = true;
        }
    }

    private void endSync() {
        synchronized (syncLock) {
            syncing = false;
            syncLock.notifyAll();
        }
        releaseWaiters();
    }

    private void waitForSync() throws InterruptedIOException {
        try {
            syncLock.wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the log to sync");
        }
    }

    /** Records a completed sync that covered the first {@code s} payloads. */
    private void countForce(long s) {
        synchronized (syncLock) {
            forceCount++;
            if (s > durable) {
                durable = s;
            }
        }
    }

    private IOException fail(Throwable cause, String what) {
        IOException f = new IOException("log " + dir + " failed: " + what + "; it accepts no more writes until reopened", cause);
        synchronized (syncLock) {
            if (failure == null) {
                failure = f;
            }
            syncLock.notifyAll();
        }
        return f;
    }

    private void checkUsable() throws IOException {
        IOException f = failure;
        if (f != null) {
            throw new IOException(f.getMessage(), f.getCause());
        }
        if (closed) {
            throw new ClosedChannelException();
        }
    }

    // ------------------------------------------------------------------ reads

    @Override
    public long size() {
        return size;
    }

    @Override
    public long durableSize() {
        return durable;
    }

    /** Number of syncs of segment files done by group commit and rolling (for tests and metrics). */
    public long forceCount() {
        synchronized (syncLock) {
            return forceCount;
        }
    }

    /** Bytes of torn or uncommitted tail cut off when this log was opened (0 if none); for logging. */
    public long recoveredTailBytes() {
        return recoveredTailBytes;
    }

    /** The failure that stopped writes, or null. */
    public IOException failure() {
        return failure;
    }

    /** The directory holding the segments. */
    public Path directory() {
        return dir;
    }

    @Override
    public byte[] read(long index) throws IOException {
        long s = size;
        Objects.checkIndex(index, s);
        long pos = positions[(int) index];
        Segment seg = segmentOf(index);
        // One read for the frame of a typical event (header and payload together); a larger
        // payload takes a second read for its rest.
        byte[] first = new byte[FIRST_READ_BYTES];
        int got = seg.readFully(ByteBuffer.wrap(first), pos);
        if (got < HEADER_BYTES) {
            throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
        }
        int word = (int) INT.get(first, 0);
        if (word <= 0 || word > MAX_PAYLOAD_BYTES) {
            throw new CorruptLogException(seg.path, pos, "bad record frame length word " + Integer.toHexString(word));
        }
        byte[] payload = new byte[word];
        int have = Math.min(word, got - HEADER_BYTES);
        System.arraycopy(first, HEADER_BYTES, payload, 0, have);
        if (have < word && seg.readFully(ByteBuffer.wrap(payload, have, word - have), pos + HEADER_BYTES + have)
                < word - have) {
            throw new CorruptLogException(seg.path, pos, "frame extends past end of file");
        }
        byte[] header = first;
        CRC32C crc = new CRC32C();
        crc.update(payload, 0, word);
        if ((int) crc.getValue() != (int) INT.get(header, 4)) {
            throw new CorruptLogException(seg.path, pos, "CRC mismatch");
        }
        return payload;
    }

    @Override
    public void readEach(long[] ascendingIndexes, PayloadVisitor visitor) throws IOException {
        long s = size;
        long[] table = positions;
        Segment windowSegment = null;
        long windowStart = 0;
        byte[] window = new byte[READ_WINDOW_BYTES];
        int windowLength = 0;
        for (long index : ascendingIndexes) {
            Objects.checkIndex(index, s);
            Segment seg = segmentOf(index);
            long pos = table[(int) index];
            if (seg != windowSegment || pos < windowStart || pos + HEADER_BYTES > windowStart + windowLength) {
                windowSegment = seg;
                windowStart = pos;
                windowLength = seg.readFully(ByteBuffer.wrap(window), pos);
            }
            int at = (int) (pos - windowStart);
            if (windowLength - at < HEADER_BYTES) {
                throw new CorruptLogException(seg.path, pos, "frame header missing (file shorter than expected)");
            }
            int word = (int) INT.get(window, at);
            if (word <= 0 || word > MAX_PAYLOAD_BYTES) {
                throw new CorruptLogException(seg.path, pos, "bad record frame length word " + Integer.toHexString(word));
            }
            byte[] payload;
            if (at + HEADER_BYTES + word <= windowLength) {
                payload = Arrays.copyOfRange(window, at + HEADER_BYTES, at + HEADER_BYTES + word);
            } else {
                payload = read(index); // a frame larger than what is left of the window
                visitor.accept(index, payload);
                continue;
            }
            CRC32C crc = new CRC32C();
            crc.update(payload, 0, word);
            if ((int) crc.getValue() != (int) INT.get(window, at + 4)) {
                throw new CorruptLogException(seg.path, pos, "CRC mismatch");
            }
            visitor.accept(index, payload);
        }
    }

    @Override
    public void scan(long from, long to, PayloadVisitor visitor) throws IOException {
        long s = size;
        Objects.checkFromToIndex(from, to, s);
        long[] table = positions;
        Segment[] segs = segments;
        long index = from;
        while (index < to) {
            int si = segmentIndexOf(segs, index);
            Segment seg = segs[si];
            long segEnd = si + 1 < segs.length ? Math.min(to, segs[si + 1].start) : to;
            long pos = table[(int) index];
            // Buffer sized to the span to read (small scans stay cheap), at most READ_BUFFER_BYTES.
            long span = table[(int) (segEnd - 1)] - pos + 4096;
            FrameReader r = new FrameReader(seg, seg.reader.size(), (int) Math.min(READ_BUFFER_BYTES, span));
            while (index < segEnd) {
                int kind = r.parse(pos);
                if (kind == FrameReader.BAD) {
                    throw new CorruptLogException(seg.path, pos, r.problem);
                }
                if (kind == FrameReader.COMMIT) {
                    pos += COMMIT_FRAME_BYTES;
                    continue;
                }
                if (pos != table[(int) index]) {
                    throw new CorruptLogException(seg.path, pos, "frame of payload " + index
                            + " expected at offset " + table[(int) index]);
                }
                visitor.accept(index, r.payloadCopy());
                pos += HEADER_BYTES + r.length;
                index++;
            }
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

    /** Test hook: the current segment's write descriptor (closing it simulates a failing disk). */
    synchronized RandomAccessFile currentWriterForTest() {
        return current.writer;
    }

    // ------------------------------------------------------------------ close

    /** Syncs the current segment and closes all files. Idempotent. */
    @Override
    public void close() throws IOException {
        synchronized (this) {
            if (closed) {
                return;
            }
            beginSync();
            IOException err = null;
            try {
                if (failure == null && current != null) {
                    long s = size;
                    current.writer.getFD().sync();
                    countForce(s);
                }
            } catch (IOException e) {
                err = e;
            } finally {
                closed = true;
                endSync();
            }
            closeFiles(err);
            if (err != null) {
                throw err;
            }
        }
    }

    private void closeFiles(Throwable primary) {
        closed = true;
        for (Segment s : segments) {
            s.close();
        }
        if (current != null) {
            current.close();
        }
        synchronized (syncLock) {
            syncLock.notifyAll();
        }
    }

    // ------------------------------------------------------------------ internals

    /** One segment file: a read channel (reopened if an interrupt closed it) and, while current, a writer. */
    private final class Segment {
        final long start;
        final Path path;
        volatile FileChannel reader;
        RandomAccessFile writer;

        Segment(long start, Path path) throws IOException {
            this.start = start;
            this.path = path;
            this.reader = FileChannel.open(path, StandardOpenOption.READ);
        }

        void openWriter() throws IOException {
            writer = new RandomAccessFile(path.toFile(), "rw");
        }

        void closeWriter() {
            RandomAccessFile w = writer;
            if (w != null) {
                try {
                    w.close();
                } catch (IOException ignored) {
                    // data was synced before; nothing to lose
                }
            }
        }

        /** Positional read of up to dst.remaining() bytes; returns how many were read (less at EOF). */
        int readFully(ByteBuffer dst, long pos) throws IOException {
            int total = 0;
            boolean retried = false;
            while (dst.hasRemaining()) {
                FileChannel ch = reader;
                int n;
                try {
                    n = ch.read(dst, pos + total);
                } catch (ClosedByInterruptException e) {
                    reopen(ch);   // repair the shared channel for other threads, then give up
                    throw e;
                } catch (ClosedChannelException e) {
                    if (closed || retried) {
                        throw e;
                    }
                    retried = true;
                    reopen(ch);
                    continue;
                }
                if (n < 0) {
                    break;
                }
                total += n;
            }
            return total;
        }

        private synchronized void reopen(FileChannel broken) throws IOException {
            if (reader == broken && !closed) {
                reader = FileChannel.open(path, StandardOpenOption.READ);
            }
        }

        synchronized void close() {
            try {
                reader.close();
            } catch (IOException ignored) {
                // read-only
            }
            closeWriter();
        }
    }

    /** Sequential, buffered frame parser over one segment; used by recovery and scan. */
    private static final class FrameReader {
        static final int BAD = 0;
        static final int RECORD = 1;
        static final int COMMIT = 2;

        private final Segment seg;
        private final long fileEnd;
        private final CRC32C crc = new CRC32C();
        private byte[] buf;
        private long bufPos;
        private int bufLen;

        int length;
        int payloadOffset;
        long commitCount;
        String problem;

        FrameReader(Segment seg, long fileEnd, int bufferBytes) {
            this.seg = seg;
            this.fileEnd = fileEnd;
            this.buf = new byte[bufferBytes];
        }

        private boolean fill(long pos, int n) throws IOException {
            if (pos >= bufPos && pos + n <= bufPos + bufLen) {
                return true;
            }
            if (pos + n > fileEnd) {
                return false;
            }
            if (n > buf.length) {
                buf = new byte[n];
            }
            int want = (int) Math.min(buf.length, fileEnd - pos);
            bufPos = pos;
            bufLen = seg.readFully(ByteBuffer.wrap(buf, 0, want), pos);
            return bufLen >= n;
        }

        int parse(long pos) throws IOException {
            if (!fill(pos, HEADER_BYTES)) {
                problem = "incomplete frame header";
                return BAD;
            }
            int o = (int) (pos - bufPos);
            int word = (int) INT.get(buf, o);
            int stored = (int) INT.get(buf, o + 4);
            boolean commit = (word & COMMIT_FLAG) != 0;
            int len = word & ~COMMIT_FLAG;
            if (commit ? word != COMMIT_LENGTH_WORD : len == 0 || len > MAX_PAYLOAD_BYTES) {
                problem = "impossible frame length word 0x" + Integer.toHexString(word);
                return BAD;
            }
            if (!fill(pos, HEADER_BYTES + len)) {
                problem = "frame of " + len + " bytes extends past end of file";
                return BAD;
            }
            o = (int) (pos - bufPos);
            crc.reset();
            crc.update(buf, o + HEADER_BYTES, len);
            if ((int) crc.getValue() != stored) {
                problem = "CRC mismatch";
                return BAD;
            }
            length = len;
            payloadOffset = o + HEADER_BYTES;
            if (commit) {
                if (buf[payloadOffset] != COMMIT_MARKER) {
                    problem = "commit frame without its marker";
                    return BAD;
                }
                commitCount = (long) LONG.get(buf, payloadOffset + 1);
                return COMMIT;
            }
            return RECORD;
        }

        byte[] payloadCopy() {
            return Arrays.copyOfRange(buf, payloadOffset, payloadOffset + length);
        }
    }
}
