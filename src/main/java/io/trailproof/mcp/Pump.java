package io.trailproof.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Copies one direction of the session: every chunk read is written and flushed at once, exactly as
 * read (src/site/mcp-proxy.md#pass-through). The framer only reads a copy, so recording never changes
 * or reorders a byte.
 *
 * <p>The framer sees each chunk just before it is written on, so the lines a chunk completes are
 * queued for the recorder before any byte of the chunk reaches the other side. That keeps the
 * recorded order causal across the two directions: a message the other side sends in answer to one
 * it read can only be queued after it (src/site/mcp-proxy.md#what-is-recorded). Framed after the write,
 * a pump descheduled between its flush and its framing would let the answer's line overtake the
 * message it answers (seen under load: a call recorded before the result the client had already read).
 *
 * <p>When the destination fails (the reader went away), the pump keeps reading and discarding, so the
 * writer on the other side never blocks on a full pipe; when the source ends, the destination is
 * closed if asked (the client's end of input becomes the MCP server's end of input).
 */
final class Pump implements Runnable {

    private static final int CHUNK = 64 * 1024;

    private final InputStream from;
    private final OutputStream to;
    private final LineFramer framer;
    private final boolean closeWhenDone;
    private volatile boolean destinationFailed;

    /**
     * @param framer receives a copy of every chunk just before it is passed on; null to copy only
     * @param closeWhenDone whether to close {@code to} when {@code from} ends
     */
    Pump(InputStream from, OutputStream to, LineFramer framer, boolean closeWhenDone) {
        this.from = from;
        this.to = to;
        this.framer = framer;
        this.closeWhenDone = closeWhenDone;
    }

    @Override
    public void run() {
        byte[] buffer = new byte[CHUNK];
        try {
            int n;
            while ((n = from.read(buffer)) >= 0) {
                if (n == 0) {
                    continue;
                }
                if (framer != null) {
                    framer.feed(buffer, 0, n);
                }
                if (!destinationFailed) {
                    try {
                        to.write(buffer, 0, n);
                        to.flush();
                    } catch (IOException e) {
                        destinationFailed = true;
                    }
                }
            }
        } catch (IOException e) {
            // The source broke (its process died or closed the pipe): treated as its end.
        } finally {
            if (framer != null) {
                framer.finish();
            }
            if (closeWhenDone) {
                try {
                    to.close();
                } catch (IOException ignored) {
                    // already closed by the other side
                }
            }
        }
    }

    /** Whether writing to the destination failed at some point (what followed was read and discarded). */
    boolean destinationFailed() {
        return destinationFailed;
    }
}
