package io.trailproof.mcp;

import java.io.ByteArrayOutputStream;

/**
 * Cuts the bytes of one direction of an MCP stdio session into messages: the transport is
 * newline-delimited JSON-RPC, one message (an object, or a batch as an array) per line
 * (src/site/mcp-proxy.md#what-is-recorded). Chunks arrive as the pipe delivers them, so a message may
 * be split across many chunks and one chunk may hold many messages.
 *
 * <p>The framer only observes: the bytes themselves are passed on by the caller before they are fed
 * here. A line longer than {@code maxLineBytes} is not kept; the framer still counts it and reports
 * it as oversized, so a huge message costs no memory and is never half-parsed. The line terminator
 * ({@code \n}) is not part of a line; a {@code \r} before it is kept (JSON treats it as whitespace).
 * A last line without a terminator is reported by {@link #finish()}.
 */
final class LineFramer {

    /** Receives each complete line. */
    interface LineSink {
        /**
         * One line. {@code bytes} is the line's content (a copy the sink may keep), or null when it
         * was longer than the limit; {@code length} is its full length in bytes either way.
         */
        void line(byte[] bytes, long length);
    }

    private final int maxLineBytes;
    private final LineSink sink;
    /** A buffer that grew past this for one line is dropped after it. */
    private static final int SHRINK_ABOVE = 1 << 20;

    private ByteArrayOutputStream current = new ByteArrayOutputStream();
    private long currentLength;
    private boolean oversized;

    LineFramer(int maxLineBytes, LineSink sink) {
        if (maxLineBytes < 1) {
            throw new IllegalArgumentException("maxLineBytes must be positive: " + maxLineBytes);
        }
        this.maxLineBytes = maxLineBytes;
        this.sink = sink;
    }

    /** Feeds the next chunk of the stream. */
    void feed(byte[] chunk, int offset, int length) {
        int end = offset + length;
        int start = offset;
        for (int i = offset; i < end; i++) {
            if (chunk[i] == '\n') {
                append(chunk, start, i - start);
                emit();
                start = i + 1;
            }
        }
        append(chunk, start, end - start);
    }

    /** The stream ended: a pending line without a terminator is reported (an empty one is not). */
    void finish() {
        if (currentLength > 0) {
            emit();
        }
    }

    private void append(byte[] chunk, int offset, int length) {
        if (length == 0) {
            return;
        }
        currentLength += length;
        if (oversized) {
            return;
        }
        if (currentLength > maxLineBytes) {
            oversized = true;
            current = new ByteArrayOutputStream();
            return;
        }
        current.write(chunk, offset, length);
    }

    private void emit() {
        boolean large = current.size() > SHRINK_ABOVE;
        sink.line(oversized ? null : current.toByteArray(), currentLength);
        if (large) {
            // Do not keep a multi-megabyte buffer alive for the small messages that follow.
            current = new ByteArrayOutputStream();
        } else {
            current.reset();
        }
        currentLength = 0;
        oversized = false;
    }
}
