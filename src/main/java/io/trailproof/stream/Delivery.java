package io.trailproof.stream;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One matching event on its way to subscribers: read from the log once and shared by every
 * connection it goes to, with its SSE frame built at most once (racing builders make equal frames).
 */
final class Delivery {

    private final long logIndex;
    private final byte[] payload;
    private volatile ByteBuffer sseFrame;

    Delivery(long logIndex, byte[] payload) {
        this.logIndex = logIndex;
        this.payload = payload;
    }

    long logIndex() {
        return logIndex;
    }

    /** The stored event's bytes, exactly as {@code GET /v1/events/{id}} returns them. */
    byte[] payload() {
        return payload;
    }

    /**
     * {@code id: <log_index>\nevent: event\ndata: <json>\n\n}. A stored event is canonical JSON on one
     * line (RFC 8785 escapes every control character), so one {@code data:} line carries it whole.
     * The frame is a direct buffer: a socket write of a heap buffer first copies it into a direct
     * one, for every connection it goes to. Each caller gets its own read-only view.
     */
    ByteBuffer sseFrame() {
        ByteBuffer f = sseFrame;
        if (f == null) {
            byte[] head = ("id: " + logIndex + "\nevent: event\ndata: ").getBytes(StandardCharsets.US_ASCII);
            ByteBuffer b = ByteBuffer.allocateDirect(head.length + payload.length + 2);
            b.put(head).put(payload).put((byte) '\n').put((byte) '\n').flip();
            f = b.asReadOnlyBuffer();
            sseFrame = f;
        }
        return f.duplicate();
    }
}
