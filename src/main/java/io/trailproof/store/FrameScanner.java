package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reads the frames of one segment in order through a buffer (many frames per read), checking each
 * with {@link FrameCodec}; used by recovery and the scans of {@link SegmentReads}. Not thread-safe.
 *
 * <p>Two bounds, never confused: the buffer size is only how much one read fetches (a frame larger
 * than it grows the buffer and is read again whole), and {@code end} is where the frames end (the
 * segment's readable end, or its file length during recovery). Only a frame that {@code end} cuts,
 * or a file shorter than {@code end}, is reported {@link FrameCodec#BAD}.
 */
final class FrameScanner {
    private final Segment segment;
    private final long end;
    private final FrameCodec.Frame frame = new FrameCodec.Frame();
    private byte[] buf;
    private long bufPos;
    private int bufLen;
    private int payloadOffset;

    FrameScanner(Segment segment, long end, int bufferBytes) {
        this.segment = segment;
        this.end = end;
        this.buf = new byte[Math.max(bufferBytes, FrameCodec.COMMIT_FRAME_BYTES)];
    }

    /** The frame {@link #next} checked last. */
    FrameCodec.Frame frame() {
        return frame;
    }

    /**
     * Checks the frame at {@code pos}: {@link FrameCodec#RECORD}, {@link FrameCodec#SIDE},
     * {@link FrameCodec#COMMIT} or {@link FrameCodec#BAD} (a frame {@code end} cuts, or one the file
     * ends inside, is BAD, with the problem set).
     */
    int next(long pos) throws IOException {
        int kind = checkBuffered(pos);
        // At most two reads: the first may learn only the frame's length (its header was not
        // buffered), the second then reads the whole frame, into a larger buffer if need be.
        while (kind == FrameCodec.SHORT) {
            int needed = frame.needed;
            if (pos + needed > end) {
                return frame.kind = FrameCodec.BAD;
            }
            if (needed > buf.length) {
                buf = new byte[needed];
            }
            int want = (int) Math.min(buf.length, end - pos);
            bufPos = pos;
            bufLen = segment.read(ByteBuffer.wrap(buf, 0, want), pos);
            if (bufLen < needed) {
                frame.problem = "file shorter than its readable end " + end + " (" + (pos + bufLen) + " bytes)";
                return frame.kind = FrameCodec.BAD;
            }
            kind = checkBuffered(pos);
        }
        return kind;
    }

    private int checkBuffered(long pos) {
        long rel = pos - bufPos;
        int available = rel >= 0 && rel <= bufLen ? bufLen - (int) rel : 0;
        int o = available > 0 ? (int) rel : 0;
        int kind = FrameCodec.check(buf, o, available, frame);
        payloadOffset = o + FrameCodec.HEADER_BYTES;
        return kind;
    }

    /** A copy of the payload of the frame {@link #next} accepted last. */
    byte[] payloadCopy() {
        return Arrays.copyOfRange(buf, payloadOffset, payloadOffset + frame.length);
    }

    /**
     * The buffer holding the payload of the frame {@link #next} accepted last, at {@link #payloadOffset}
     * ({@code frame().length} bytes); overwritten by the next read.
     */
    byte[] buffer() {
        return buf;
    }

    int payloadOffset() {
        return payloadOffset;
    }
}
