package io.trailproof.store;

import io.trailproof.background.Pacer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.zip.CRC32C;

/**
 * Rewrites the segments that hold given payloads (src/site/erasure.md#physically-gone; the one
 * exception to the log being append-only, src/site/storage.md). Each segment is rewritten whole,
 * crash-safely: the new content is written to {@code NAME.seg.rewrite} and forced, then renamed
 * over {@code NAME.seg} (an atomic replace) and the directory forced. A crash leaves either the old
 * or the new file under the segment's name, never a mix; a leftover {@code .rewrite} file is an
 * unfinished rewrite, deleted on open ({@link #discardUnfinished}). Which segments of one call
 * were rewritten before a crash is for the caller to find and finish (the ledger replays the
 * erasure it recorded first).
 *
 * <p>Only sealed segments are rewritten: a payload in the segment being appended to makes the log
 * roll to a new one first, so appends never wait for a rewrite, only for that roll. Readers of a
 * segment being replaced finish on the file they opened or retry on the new one
 * ({@link SegmentReplacedException}); positions of the new file travel with its {@link Segment}.
 *
 * <p>Record frames keep their order and count, commit frames are copied unchanged (their counts do
 * not move), side frames are handed to the caller to be rewritten too; their addresses change, and
 * the answer maps old addresses to new.
 */
final class SegmentRewrite {
    static final String SUFFIX = ".rewrite";

    private SegmentRewrite() {
    }

    /** Deletes rewrites a crash interrupted before their rename: the segment they were for is intact. */
    static void discardUnfinished(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        boolean any = false;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + Segment.SUFFIX + SUFFIX)) {
            for (Path p : ds) {
                Files.delete(p);
                any = true;
            }
        }
        if (any) {
            AtomicFile.forceDirectory(dir);
        }
    }

    /**
     * Rewrites the segments holding the keys of {@code replacements} (all below the log's durable
     * size), replacing those payloads and passing every side frame of those segments through
     * {@code sides}; {@code pacer} paces the segments (an erasure gives way to ingestion).
     */
    static EventLog.Rewritten run(SegmentAppender appender, ReadChannels channels, PositionTable table, SegmentIo io,
                                  Path dir, NavigableMap<Long, byte[]> replacements, EventLog.SideRewriter sides,
                                  StepProbe probe, Pacer pacer) throws IOException {
        if (replacements.isEmpty()) {
            return new EventLog.Rewritten(Map.of(), 0);
        }
        appender.sealThrough(replacements.lastKey());
        Map<Long, Long> moved = new HashMap<>();
        int rewritten = 0;
        Segment[] segs = appender.segments();
        for (int i = 0; i < segs.length; i++) {
            long from = segs[i].start;
            long to = i + 1 < segs.length ? segs[i + 1].start : Long.MAX_VALUE;
            NavigableMap<Long, byte[]> mine = replacements.subMap(from, true, to, false);
            if (mine.isEmpty()) {
                continue;
            }
            if (i == segs.length - 1) {
                throw new IllegalStateException("the segment being appended to cannot be rewritten");
            }
            if (rewritten > 0) {
                pacer.pace();
            }
            rewriteOne(appender, channels, table, io, dir, i, segs[i], to, mine, sides, moved, probe);
            rewritten++;
        }
        return new EventLog.Rewritten(moved, rewritten);
    }

    private static void rewriteOne(SegmentAppender appender, ReadChannels channels, PositionTable table, SegmentIo io,
                                   Path dir, int ordinal, Segment seg, long end, NavigableMap<Long, byte[]> mine,
                                   EventLog.SideRewriter sides, Map<Long, Long> moved, StepProbe probe)
            throws IOException {
        byte[] old = readWhole(seg);
        long[] positions = new long[(int) (end - seg.start)];
        List<SealRecord.Side> kept = new ArrayList<>();
        Out out = new Out(old.length + 4096);
        FrameCodec.Frame f = new FrameCodec.Frame();
        long index = seg.start;
        int o = 0;
        while (o < old.length) {
            int kind = FrameCodec.check(old, o, old.length - o, f);
            if (kind == FrameCodec.BAD || kind == FrameCodec.SHORT) {
                throw new CorruptLogException(seg.path, o, f.problem);
            }
            int p = o + FrameCodec.HEADER_BYTES;
            switch (kind) {
                case FrameCodec.RECORD -> {
                    if (index >= end) {
                        throw new CorruptLogException(seg.path, o, "more payloads than the next segment's name allows");
                    }
                    positions[(int) (index - seg.start)] = out.size;
                    byte[] replacement = mine.get(index);
                    if (replacement == null) {
                        out.put(old, o, f.frameBytes);
                    } else {
                        out.frame(0, replacement, 0, replacement.length);
                    }
                    index++;
                }
                case FrameCodec.SIDE -> {
                    byte[] payload = Arrays.copyOfRange(old, p, p + f.length);
                    byte[] now = sides.rewrite(payload);
                    long newAt = out.size;
                    if (now == null || now == payload || Arrays.equals(now, payload)) {
                        out.put(old, o, f.frameBytes);
                        kept.add(new SealRecord.Side(newAt, payload));
                    } else {
                        out.frame(FrameCodec.SIDE_FLAG, now, 0, now.length);
                        kept.add(new SealRecord.Side(newAt, now.clone()));
                    }
                    if (newAt != o) {
                        moved.put(FrameCodec.sideAddress(ordinal, o), FrameCodec.sideAddress(ordinal, newAt));
                    }
                }
                default -> out.put(old, o, f.frameBytes);   // commit frames: counts unchanged
            }
            o += f.frameBytes;
        }
        if (index != end) {
            throw new CorruptLogException(seg.path, o, "segment holds " + (index - seg.start) + " payloads, "
                    + (end - seg.start) + " expected");
        }
        Path tmp = dir.resolve(seg.path.getFileName() + SUFFIX);
        Files.deleteIfExists(tmp);
        Files.newByteChannel(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
        try (SegmentIo.WritableFile w = io.open(tmp)) {
            w.write(0, out.buf, 0, out.size);
            w.force();
        }
        probe.reached("segment-written");
        Segment fresh = new Segment(seg.start, seg.path, channels, positions, out.size);
        // The old seal record goes before the new file takes the name (a start between finds no
        // record and checks the segment in full); the new one is written once the new file is durable.
        SealRecord.delete(dir, seg.start);
        appender.replace(ordinal, seg, fresh, () -> {
            channels.retire(seg);   // before the rename: no channel of the old object opens the new file
            Files.move(tmp, seg.path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        });
        // The rename made durable outside the append lock, so appends do not wait for this sync; the
        // caller learns of the rewrite only after it (a crash before leaves either file, see above).
        AtomicFile.forceDirectory(dir);
        SegmentRecovery.writeSealRecord(dir, seg.start, new SegmentRecovery.Checked(positions, List.copyOf(kept), out.size));
        probe.reached("segment-renamed");
    }

    private static byte[] readWhole(Segment seg) throws IOException {
        long size = seg.readableEnd();   // sealed: every frame in it is committed
        if (size > Integer.MAX_VALUE - 64) {
            throw new IOException("segment " + seg.path + " is too large to rewrite in memory");
        }
        byte[] b = new byte[(int) size];
        int got = 0;
        while (got < b.length) {
            int n = seg.read(ByteBuffer.wrap(b, got, b.length - got), got);
            if (n <= 0) {
                throw new CorruptLogException(seg.path, got, "segment ended while it was read for a rewrite");
            }
            got += n;
        }
        return b;
    }

    /** A growing byte buffer that writes frames. */
    private static final class Out {
        byte[] buf;
        int size;
        private final CRC32C crc = new CRC32C();

        Out(int capacity) {
            buf = new byte[capacity];
        }

        void put(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, size, len);
            size += len;
        }

        void frame(int flag, byte[] payload, int off, int len) {
            if (len <= 0 || len > FrameCodec.MAX_PAYLOAD_BYTES) {
                throw new IllegalArgumentException("payload length " + len + " not in 1.." + FrameCodec.MAX_PAYLOAD_BYTES);
            }
            ensure(FrameCodec.HEADER_BYTES + len);
            crc.reset();
            crc.update(payload, off, len);
            ByteBuffer.wrap(buf, size, FrameCodec.HEADER_BYTES).putInt(flag | len).putInt((int) crc.getValue());
            System.arraycopy(payload, off, buf, size + FrameCodec.HEADER_BYTES, len);
            size += FrameCodec.HEADER_BYTES + len;
        }

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }
    }
}
