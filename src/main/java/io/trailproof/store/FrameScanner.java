package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Reads the frames of one segment in order through a buffer (many frames per read), checking each
 * with {@link FrameCodec}; used by recovery and {@link SegmentLog#scan}. Not thread-safe.
 */
final class FrameScanner {
    private final Segment segment;
    private final long fileEnd;
    private final FrameCodec.Frame frame = new FrameCodec.Frame();
    private byte[] buf;
    private long bufPos;
    private int bufLen;
    private int payloadOffset;

    FrameScanner(Segment segment, long fileEnd, int bufferBytes) {
        this.segment = segment;
        this.fileEnd = fileEnd;
        this.buf = new byte[Math.max(bufferBytes, FrameCodec.COMMIT_FRAME_BYTES)];
    }

    /** The frame {@link #next} checked last. */
    FrameCodec.Frame frame() {
        return frame;
    }

    /**
     * Checks the frame at {@code pos}: {@link FrameCodec#RECORD}, {@link FrameCodec#COMMIT} or
     * {@link FrameCodec#BAD} (a frame the file ends inside is BAD, with the problem set).
     */
    int next(long pos) throws IOException {
        int kind = checkBuffered(pos);
        if (kind != FrameCodec.SHORT) {
            return kind;
        }
        int needed = frame.needed;
        if (pos + needed > fileEnd) {
            return frame.kind = FrameCodec.BAD;
        }
        if (needed > buf.length) {
            buf = new byte[needed];
        }
        bufPos = pos;
        bufLen = segment.read(ByteBuffer.wrap(buf, 0, (int) Math.min(buf.length, fileEnd - pos)), pos);
        kind = checkBuffered(pos);
        return kind == FrameCodec.SHORT ? (frame.kind = FrameCodec.BAD) : kind;
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
