package io.trailproof.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Copies one direction of the session: every chunk read is written and flushed at once, exactly as
 * read (src/site/mcp-proxy.md#pass-through). The framer only reads a copy, so recording never changes
 * or reorders a byte.
 *
 * <p>The framer sees each chunk just before it is written on, so the messages a chunk completes are
 * numbered and queued for the recorder before any byte of the chunk reaches the other side. That keeps
 * the recorded order causal across the two directions: a message the other side sends in answer to one
 * it read can only be numbered after it (src/site/mcp-proxy.md#order). Framed after the write, a pump
 * descheduled between its flush and its framing would let the answer overtake the message it answers.
 *
 * <p>{@link #stop()} ends a pump whose source may never end (a grandchild of the MCP server holding
 * its output open): a chunk being framed is finished first, whatever the framer holds is reported, and
 * nothing read afterwards is passed on, so every byte passed on was framed.
 *
 * <p>When the destination fails (the reader went away), the pump keeps reading and discarding, so the
 * writer on the other side never blocks on a full pipe; when the source ends, the destination is
 * closed if asked (the client's end of input becomes the MCP server's end of input).
 */
final class Pump implements Passage {

    private static final int CHUNK = 64 * 1024;

    private final InputStream from;
    private final OutputStream to;
    private final MessageFramer framer;
    private final boolean closeWhenDone;
    private volatile boolean destinationFailed;
    /** Guards the framer: held while a chunk is framed, and by {@link #stop()}. */
    private final Object framing = new Object();
    private boolean stopped;

    /**
     * @param framer receives a copy of every chunk just before it is passed on; null to copy only
     * @param closeWhenDone whether to close {@code to} when {@code from} ends
     */
    Pump(InputStream from, OutputStream to, MessageFramer framer, boolean closeWhenDone) {
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
                synchronized (framing) {
                    if (stopped) {
                        break;
                    }
                    if (framer != null) {
                        framer.feed(buffer, 0, n);
                    }
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
            stop();
            if (closeWhenDone) {
                try {
                    to.close();
                } catch (IOException ignored) {
                    // already closed by the other side
                }
            }
        }
    }

    /**
     * Ends the pump: waits for a chunk being framed, reports what the framer still holds (a last
     * message without its end), and passes nothing on that is read from now on. Called by the pump
     * itself when its source ends; more calls do nothing.
     */
    @Override
    public void stop() {
        synchronized (framing) {
            if (stopped) {
                return;
            }
            stopped = true;
            if (framer != null) {
                framer.finish();
            }
        }
    }

    /** Whether writing to the destination failed at some point (what followed was read and discarded). */
    boolean destinationFailed() {
        return destinationFailed;
    }
}
