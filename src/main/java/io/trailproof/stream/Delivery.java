package io.trailproof.stream;

import java.nio.charset.StandardCharsets;

/**
 * One matching event on its way to subscribers: read from the log once and shared by every
 * connection it goes to, with its SSE frame built at most once (racing builders make equal frames).
 */
final class Delivery {

    private final long logIndex;
    private final byte[] payload;
    private volatile byte[] sseFrame;

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
     */
    byte[] sseFrame() {
        byte[] f = sseFrame;
        if (f == null) {
            byte[] head = ("id: " + logIndex + "\nevent: event\ndata: ").getBytes(StandardCharsets.US_ASCII);
            f = new byte[head.length + payload.length + 2];
            System.arraycopy(head, 0, f, 0, head.length);
            System.arraycopy(payload, 0, f, head.length, payload.length);
            f[f.length - 2] = '\n';
            f[f.length - 1] = '\n';
            sseFrame = f;
        }
        return f;
    }
}
