package io.trailproof.mcp;

import java.util.Arrays;

/**
 * Cuts the bytes of one direction of an MCP stdio session into messages: the transport is
 * newline-delimited JSON-RPC, one message (an object, or a batch as an array) per line
 * (src/site/mcp-proxy.md#order). Chunks arrive as the pipe delivers them, so a message may be split
 * across many chunks and one chunk may hold many messages.
 *
 * <p><b>Where a message ends.</b> At the last byte of its JSON value: the closing brace or bracket
 * that brings the nesting back to zero, outside strings (escapes followed). That is the moment the
 * message is complete for any reader, so it is the proxy's sequence point, not the newline after it
 * (which may come in a later chunk). Bytes that do not start an object or an array (a bare scalar,
 * text that is not JSON) and a value broken by a newline end at the newline instead, as the
 * transport defines. The whitespace between messages and the line terminator belong to no message;
 * a last message without a terminator is reported by {@link #finish()}.
 *
 * <p>The framer only observes: the caller passes the bytes on after feeding them here, so every
 * message a chunk completes is reported before any byte of the chunk reaches the other side. A
 * message longer than {@code maxMessageBytes} is not kept; the framer still follows its structure,
 * counts it and reports it as oversized, so a huge message costs no memory and is never half-parsed.
 */
final class MessageFramer {

    /** Receives each complete message. */
    interface MessageSink {
        /**
         * One message. {@code bytes} is its content (a copy the sink may keep), or null when it was
         * longer than the limit; {@code length} is its full length in bytes either way.
         */
        void message(byte[] bytes, long length);
    }

    private enum State { BETWEEN, VALUE, TEXT }

    private static final int INITIAL = 1024;
    /** A buffer that grew past this for one message is dropped after it. */
    private static final int SHRINK_ABOVE = 1 << 20;

    private final int maxMessageBytes;
    private final MessageSink sink;

    private State state = State.BETWEEN;
    private long depth;
    private boolean inString;
    private boolean escaped;
    private byte[] buffer = new byte[INITIAL];
    private int size;
    private long length;
    private boolean oversized;

    MessageFramer(int maxMessageBytes, MessageSink sink) {
        if (maxMessageBytes < 1) {
            throw new IllegalArgumentException("maxMessageBytes must be positive: " + maxMessageBytes);
        }
        this.maxMessageBytes = maxMessageBytes;
        this.sink = sink;
    }

    /** Feeds the next chunk of the stream. */
    void feed(byte[] chunk, int offset, int count) {
        int end = offset + count;
        int start = state == State.BETWEEN ? -1 : offset; // where the current message's bytes begin in this chunk
        for (int i = offset; i < end; i++) {
            byte b = chunk[i];
            switch (state) {
                case BETWEEN -> {
                    if (b == '{' || b == '[') {
                        state = State.VALUE;
                        depth = 1;
                        inString = false;
                        escaped = false;
                        start = i;
                    } else if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                        state = State.TEXT;
                        start = i;
                    }
                }
                case TEXT -> {
                    if (b == '\n') {
                        append(chunk, start, i - start);
                        emit();
                        start = -1;
                    }
                }
                case VALUE -> {
                    if (b == '\n') {
                        // A broken value (JSON strings cannot hold a raw newline): the line ends it.
                        append(chunk, start, i - start);
                        emit();
                        start = -1;
                    } else if (inString) {
                        if (escaped) {
                            escaped = false;
                        } else if (b == '\\') {
                            escaped = true;
                        } else if (b == '"') {
                            inString = false;
                        }
                    } else if (b == '"') {
                        inString = true;
                    } else if (b == '{' || b == '[') {
                        depth++;
                    } else if ((b == '}' || b == ']') && --depth == 0) {
                        append(chunk, start, i + 1 - start);
                        emit();
                        start = -1;
                    }
                }
            }
        }
        if (start >= 0) {
            append(chunk, start, end - start);
        }
    }

    /** The stream ended: a pending message without its end is reported as it is. */
    void finish() {
        if (state != State.BETWEEN) {
            emit();
        }
    }

    private void append(byte[] chunk, int offset, int count) {
        if (count == 0) {
            return;
        }
        length += count;
        if (oversized) {
            return;
        }
        if (length > maxMessageBytes) {
            oversized = true;
            size = 0;
            if (buffer.length > SHRINK_ABOVE) {
                buffer = new byte[INITIAL];
            }
            return;
        }
        if (size + count > buffer.length) {
            buffer = Arrays.copyOf(buffer, (int) Math.min(maxMessageBytes, Math.max(size + count, 2L * buffer.length)));
        }
        System.arraycopy(chunk, offset, buffer, size, count);
        size += count;
    }

    private void emit() {
        sink.message(oversized ? null : Arrays.copyOf(buffer, size), length);
        if (buffer.length > SHRINK_ABOVE) {
            // Do not keep a multi-megabyte buffer alive for the small messages that follow.
            buffer = new byte[INITIAL];
        }
        size = 0;
        length = 0;
        oversized = false;
        state = State.BETWEEN;
    }
}
