package io.trailproof.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The segment log's frame format (src/site/storage.md): the one place that lays out a frame and the one
 * place that decides whether stored bytes are a valid frame. Recovery, {@link SegmentLog#scan},
 * {@link SegmentLog#read} and {@link SegmentLog#readEach} all check frames here.
 *
 * <pre>
 *   [length word: 4 bytes big-endian][CRC32C of payload: 4 bytes big-endian][payload]
 * </pre>
 * The frame type is encoded in the length word, never guessed from the payload:
 * <ul>
 *   <li>record frame: bit 31 clear, bits 0..30 = payload length, {@code 1..MAX_PAYLOAD_BYTES}; the
 *       payload is opaque;</li>
 *   <li>commit frame, written now: length word {@code 0x80000011} and a payload of {@code 'C'},
 *       8 bytes big-endian log size after the group, 8 bytes big-endian <em>forced size</em>: the
 *       number of payloads known to be on disk when the group was written (never more than the
 *       log size before the group);</li>
 *   <li>commit frame of earlier versions, still read: length word {@code 0x80000009}, payload
 *       {@code 'C'} and the log size only (forced size unknown).</li>
 *   <li>side frame: bit 31 clear, bit 30 set, bits 0..29 = payload length,
 *       {@code 1..MAX_PAYLOAD_BYTES}; the payload is opaque to the log (the ledger's dedupe
 *       records, e.g. an {@code Idempotency-Key} and its answer). A side frame sits inside a
 *       group, after the group's record frames and before its commit frame, and is covered by
 *       that commit exactly as the records are: a crash keeps the whole group or none of it. It
 *       takes <em>no</em> log index: the commit frame's log size counts record frames only, the
 *       position table never points at it, and {@link SegmentLog#scan} and
 *       {@link SegmentLog#readEach} step over it. A group may hold side frames and no record
 *       frame at all. It is addressed by where it lies ({@link #sideAddress}).</li>
 * </ul>
 * A frame with bit 31 set and any other length, without the 'C' marker, or with a forced size
 * beyond its log size is a bad frame. The CRC covers the payload only.
 *
 * <p><b>Compatibility.</b> Earlier versions refused a length word with bit 30 set as an impossible
 * length (above 64 MiB), so no log written before side frames existed contains one: such logs read
 * unchanged. A log that holds side frames is not readable by a version from before side frames (it
 * stops at the first one as corruption, changing nothing).
 */
final class FrameCodec {
    static final int HEADER_BYTES = 8;
    static final int MAX_PAYLOAD_BYTES = 64 << 20;
    static final int COMMIT_FLAG = 0x8000_0000;
    /** Bit 30 of a length word whose bit 31 is clear: a side frame. */
    static final int SIDE_FLAG = 0x4000_0000;
    /** Bits of a side frame's address holding the offset in its segment; the segment's ordinal is above them. */
    static final int ADDRESS_OFFSET_BITS = 40;
    static final byte COMMIT_MARKER = 'C';
    /** Commit payload of earlier versions: marker and log size. */
    static final int COMMIT_V1_PAYLOAD_BYTES = 9;
    /** Commit payload written now: marker, log size, forced size. */
    static final int COMMIT_PAYLOAD_BYTES = 17;
    static final int COMMIT_FRAME_BYTES = HEADER_BYTES + COMMIT_PAYLOAD_BYTES;
    /** {@link Frame#forcedSize} of a commit frame that does not record it (earlier versions). */
    static final long FORCED_UNKNOWN = -1;
    private static final long MAX_GROUP_BYTES = Integer.MAX_VALUE - 64;

    /** {@link #check} results. */
    static final int BAD = 0;
    static final int RECORD = 1;
    static final int COMMIT = 2;
    /** Fewer bytes available than the frame needs: {@link Frame#needed} says how many. */
    static final int SHORT = 3;
    /** A side frame: CRC-checked, inside a group, takes no log index. */
    static final int SIDE = 4;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private FrameCodec() {
    }

    /** What {@link #check} found; one instance is reused by a reader, so checking allocates nothing. */
    static final class Frame {
        final CRC32C crc = new CRC32C();
        int kind;
        /** Payload length. */
        int length;
        /** Header plus payload. */
        int frameBytes;
        /** For {@link #SHORT}: bytes the frame needs from its start. */
        int needed;
        long commitCount;
        long forcedSize;
        String problem;
    }

    /**
     * Checks the frame starting at {@code buf[o]}, of which {@code available} bytes are present.
     * Returns {@link #RECORD}, {@link #SIDE}, {@link #COMMIT}, {@link #BAD} (with {@link Frame#problem}) or
     * {@link #SHORT} (with {@link Frame#needed}, and a problem to report when no more bytes exist).
     */
    static int check(byte[] buf, int o, int available, Frame f) {
        if (available < HEADER_BYTES) {
            f.needed = HEADER_BYTES;
            f.problem = "incomplete frame header";
            return f.kind = SHORT;
        }
        int kind = header(buf, o, f);
        if (kind == BAD) {
            return BAD;
        }
        if (available < f.frameBytes) {
            f.needed = f.frameBytes;
            f.problem = "frame of " + f.length + " bytes extends past end of file";
            return f.kind = SHORT;
        }
        return body(buf, o + HEADER_BYTES, (int) INT.get(buf, o + 4), f);
    }

    /** Checks the length word at {@code buf[o]} alone; sets the length and returns the kind it announces, or BAD. */
    static int header(byte[] buf, int o, Frame f) {
        int word = (int) INT.get(buf, o);
        boolean commit = (word & COMMIT_FLAG) != 0;
        boolean side = !commit && (word & SIDE_FLAG) != 0;
        int len = word & ~(COMMIT_FLAG | (side ? SIDE_FLAG : 0));
        if (commit ? len != COMMIT_PAYLOAD_BYTES && len != COMMIT_V1_PAYLOAD_BYTES : len == 0 || len > MAX_PAYLOAD_BYTES) {
            f.problem = "impossible frame length word 0x" + Integer.toHexString(word);
            return f.kind = BAD;
        }
        f.length = len;
        f.frameBytes = HEADER_BYTES + len;
        return f.kind = commit ? COMMIT : side ? SIDE : RECORD;
    }

    /**
     * Checks the payload {@code buf[p .. p + f.length)} of a frame whose header {@link #header}
     * accepted, against the stored CRC; for a commit frame also its marker and counts.
     */
    static int body(byte[] buf, int p, int storedCrc, Frame f) {
        f.crc.reset();
        f.crc.update(buf, p, f.length);
        if ((int) f.crc.getValue() != storedCrc) {
            f.problem = "CRC mismatch";
            return f.kind = BAD;
        }
        if (f.kind != COMMIT) {
            return f.kind;
        }
        if (buf[p] != COMMIT_MARKER) {
            f.problem = "commit frame without its marker";
            return f.kind = BAD;
        }
        f.commitCount = (long) LONG.get(buf, p + 1);
        f.forcedSize = f.length == COMMIT_PAYLOAD_BYTES ? (long) LONG.get(buf, p + 9) : FORCED_UNKNOWN;
        if (f.forcedSize > f.commitCount || f.commitCount < 0) {
            f.problem = "commit frame records forced size " + f.forcedSize + " beyond its log size " + f.commitCount;
            return f.kind = BAD;
        }
        return COMMIT;
    }

    /** The stored CRC of the frame at {@code buf[o]} (its header must be present). */
    static int storedCrc(byte[] buf, int o) {
        return (int) INT.get(buf, o + 4);
    }

    /** Whether the 4 bytes at {@code buf[o]} are a commit frame's length word (either version). */
    static boolean isCommitWord(byte[] buf, int o) {
        int word = (int) INT.get(buf, o);
        return word == (COMMIT_FLAG | COMMIT_PAYLOAD_BYTES) || word == (COMMIT_FLAG | COMMIT_V1_PAYLOAD_BYTES);
    }

    /**
     * The address of a side frame: the ordinal of its segment (0 for the first segment file of the
     * log, in name order) and its offset in that file. Stable for the life of the log.
     */
    static long sideAddress(int segmentOrdinal, long offset) {
        if (offset < 0 || offset >= 1L << ADDRESS_OFFSET_BITS) {
            throw new IllegalArgumentException("offset " + offset + " beyond what a side frame address holds");
        }
        return ((long) segmentOrdinal << ADDRESS_OFFSET_BITS) | offset;
    }

    static int addressSegment(long address) {
        return (int) (address >>> ADDRESS_OFFSET_BITS);
    }

    static long addressOffset(long address) {
        return address & ((1L << ADDRESS_OFFSET_BITS) - 1);
    }

    /**
     * Bytes of the group (record frames, side frames and commit frame); checks every payload.
     *
     * @throws IllegalArgumentException for an empty group (neither records nor side records), an
     *     empty or oversized payload, or a group too large for one write
     */
    static int groupBytes(List<byte[]> payloads, List<byte[]> sides) {
        if (payloads.isEmpty() && sides.isEmpty()) {
            throw new IllegalArgumentException("empty group");
        }
        long total = COMMIT_FRAME_BYTES + frameBytes(payloads) + frameBytes(sides);
        if (total > MAX_GROUP_BYTES) {
            throw new IllegalArgumentException("group too large: " + total + " bytes");
        }
        return (int) total;
    }

    private static long frameBytes(List<byte[]> payloads) {
        long total = 0;
        for (byte[] p : payloads) {
            Objects.requireNonNull(p, "payload");
            if (p.length == 0 || p.length > MAX_PAYLOAD_BYTES) {
                throw new IllegalArgumentException("payload length " + p.length + " not in 1.." + MAX_PAYLOAD_BYTES);
            }
            total += HEADER_BYTES + p.length;
        }
        return total;
    }

    /**
     * Lays out a group (checked by {@link #groupBytes}) as its record frames, its side frames and a
     * commit frame recording {@code sizeAfter} and {@code forcedSize}; stores each record frame's
     * offset relative to the group's start in {@code frameOffsets}, and each side frame's in
     * {@code sideOffsets}.
     */
    static byte[] encodeGroup(List<byte[]> payloads, List<byte[]> sides, int totalBytes, long sizeAfter,
                              long forcedSize, long[] frameOffsets, long[] sideOffsets) {
        return encodeGroup(new byte[totalBytes], payloads, sides, totalBytes, sizeAfter, forcedSize, frameOffsets,
                sideOffsets);
    }

    /**
     * As above, into {@code into} when it holds {@code totalBytes} (bytes past them are left as they
     * are), else into a new array; returns the array written.
     */
    static byte[] encodeGroup(byte[] into, List<byte[]> payloads, List<byte[]> sides, int totalBytes, long sizeAfter,
                              long forcedSize, long[] frameOffsets, long[] sideOffsets) {
        byte[] buf = into.length >= totalBytes ? into : new byte[totalBytes];
        CRC32C crc = new CRC32C();
        int o = encodeFrames(payloads, 0, buf, 0, crc, frameOffsets);
        o = encodeFrames(sides, SIDE_FLAG, buf, o, crc, sideOffsets);
        INT.set(buf, o, COMMIT_FLAG | COMMIT_PAYLOAD_BYTES);
        buf[o + HEADER_BYTES] = COMMIT_MARKER;
        LONG.set(buf, o + HEADER_BYTES + 1, sizeAfter);
        LONG.set(buf, o + HEADER_BYTES + 9, forcedSize);
        crc.reset();
        crc.update(buf, o + HEADER_BYTES, COMMIT_PAYLOAD_BYTES);
        INT.set(buf, o + 4, (int) crc.getValue());
        return buf;
    }

    private static int encodeFrames(List<byte[]> payloads, int flag, byte[] buf, int o, CRC32C crc, long[] offsets) {
        for (int i = 0; i < payloads.size(); i++) {
            byte[] p = payloads.get(i);
            offsets[i] = o;
            crc.reset();
            crc.update(p, 0, p.length);
            INT.set(buf, o, flag | p.length);
            INT.set(buf, o + 4, (int) crc.getValue());
            System.arraycopy(p, 0, buf, o + HEADER_BYTES, p.length);
            o += HEADER_BYTES + p.length;
        }
        return o;
    }
}
