package io.trailproof.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.undertow.io.IoCallback;
import io.undertow.io.Sender;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.io.ByteArrayOutputStream;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;

/** Writing JSON answers. Stored events are written as their stored bytes, never re-serialised. */
final class Responses {

    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonFactory FACTORY = MAPPER.getFactory();

    private Responses() {
    }

    static void json(HttpServerExchange ex, int status, JsonNode body) throws IOException {
        bytes(ex, status, MAPPER.writeValueAsBytes(body));
    }

    static void bytes(HttpServerExchange ex, int status, byte[] body) {
        bytes(ex, status, ByteBuffer.wrap(body));
    }

    static void bytes(HttpServerExchange ex, int status, ByteBuffer body) {
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.setResponseContentLength(body.remaining());
        ex.getResponseSender().send(body);
    }

    /**
     * An answer written by {@link #write}: its chunks are sent in order, as one body, and their
     * arrays are given back for later answers once the send has ended (written or failed).
     */
    static void bytes(HttpServerExchange ex, int status, Written body) {
        ByteBuffer[] chunks = body.takeForSending();
        long length = 0;
        for (ByteBuffer b : chunks) {
            length += b.remaining();
        }
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.setResponseContentLength(length);
        ex.getResponseSender().send(chunks, new IoCallback() {
            @Override
            public void onComplete(HttpServerExchange exchange, Sender sender) {
                Chunks.giveBack(chunks);
                IoCallback.END_EXCHANGE.onComplete(exchange, sender);
            }

            @Override
            public void onException(HttpServerExchange exchange, Sender sender, IOException exception) {
                Chunks.giveBack(chunks);
                IoCallback.END_EXCHANGE.onException(exchange, sender, exception);
            }
        });
    }

    /**
     * A JSON answer written by {@link #write}, to be sent once by {@link #bytes(HttpServerExchange,
     * int, Written)}. Its chunk arrays are reused by later answers after that send, so nothing may
     * keep them: it hands them out once.
     */
    static final class Written {
        private ByteBuffer[] chunks;

        private Written(ByteBuffer[] chunks) {
            this.chunks = chunks;
        }

        synchronized ByteBuffer[] takeForSending() {
            if (chunks == null) {
                throw new IllegalStateException("an answer is sent once: its buffers are reused after the send");
            }
            ByteBuffer[] c = chunks;
            chunks = null;
            return c;
        }

        /** A copy of the answer's bytes (tests). */
        synchronized byte[] toByteArray() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (ByteBuffer b : chunks) {
                out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
            }
            return out.toByteArray();
        }
    }

    static void error(HttpServerExchange ex, int status, String message) throws IOException {
        json(ex, status, MAPPER.createObjectNode().put("error", message));
    }

    /**
     * Answers with the refusal's status, headers and message. When part of the request body is
     * unread, the answer says {@code Connection: close} and the rest of the body is read and dropped,
     * within bounds, before the connection closes ({@link UnreadBody}).
     */
    static void problem(HttpServerExchange ex, ApiException e) throws IOException {
        for (Map.Entry<String, String> h : e.headers().entrySet()) {
            ex.getResponseHeaders().put(new HttpString(h.getKey()), h.getValue());
        }
        if (ex.isRequestComplete()) {
            error(ex, e.status(), e.getMessage());
            return;
        }
        byte[] body = MAPPER.writeValueAsBytes(MAPPER.createObjectNode().put("error", e.getMessage()));
        ex.setStatusCode(e.status());
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.setResponseContentLength(body.length);
        UnreadBody.answer(ex, ByteBuffer.wrap(body));
    }

    /** Builds a JSON document with a streaming generator, for answers that embed stored events raw. */
    static Written write(GeneratorBody body) throws IOException {
        return write(4096, body);
    }

    /**
     * As {@link #write(GeneratorBody)}, with the expected size. The answer is held in chunks of at
     * most {@link Chunks#CHUNK_BYTES}, never in one array as large as itself, and is not copied as
     * it grows.
     */
    static Written write(int expectedBytes, GeneratorBody body) throws IOException {
        Chunks out = new Chunks(expectedBytes);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            body.write(g);
        }
        return new Written(out.written());
    }

    /**
     * Output held in chunks. Why not one array: G1 allocates an array over half a region (512 KB with
     * the 1 MB regions of heaps under 2 GB) as a "humongous" object, and each such allocation starts a
     * concurrent marking cycle whose Remark pause took 5-11 ms. A batch answer of 1,000 events is about
     * 780 KB: every batch would start a cycle, and those pauses would set the p99 of a replayed batch
     * and take CPU from ingest. Full-size chunk arrays of answers already sent are kept
     * (at most {@link #SPARE_CHUNKS}) and reused: a batch answer of 1,000 events was otherwise about a
     * third of what a replayed batch allocated, and each young collection it brought on was a replay
     * slower than the 5 ms goal.
     */
    static final class Chunks extends OutputStream {
        static final int CHUNK_BYTES = 128 * 1024;
        /** 8 MB at most: the chunks of a few answers of 1,000 events in flight at once. */
        static final int SPARE_CHUNKS = 64;
        private static final ArrayBlockingQueue<byte[]> SPARE =
                new ArrayBlockingQueue<>(SPARE_CHUNKS);

        private static byte[] fullSize() {
            byte[] spare = SPARE.poll();
            return spare != null ? spare : new byte[CHUNK_BYTES];
        }

        /** Keeps the full-size arrays of chunks whose send has ended, for later answers. */
        static void giveBack(ByteBuffer[] sent) {
            for (ByteBuffer b : sent) {
                if (b.hasArray() && b.array().length == CHUNK_BYTES && !SPARE.offer(b.array())) {
                    return;
                }
            }
        }

        private final List<ByteBuffer> full = new ArrayList<>();
        private byte[] current;
        private int used;

        Chunks(int expectedBytes) {
            current = expectedBytes >= CHUNK_BYTES ? fullSize() : new byte[Math.max(256, expectedBytes)];
        }

        @Override
        public void write(int b) {
            if (used == current.length) {
                next();
            }
            current[used++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                if (used == current.length) {
                    next();
                }
                int n = Math.min(len, current.length - used);
                System.arraycopy(b, off, current, used, n);
                used += n;
                off += n;
                len -= n;
            }
        }

        private void next() {
            full.add(ByteBuffer.wrap(current, 0, used));
            current = fullSize();
            used = 0;
        }

        /** The chunks written, in order; the last may be empty. */
        ByteBuffer[] written() {
            ByteBuffer[] all = full.toArray(new ByteBuffer[full.size() + 1]);
            all[full.size()] = ByteBuffer.wrap(current, 0, used);
            return all;
        }
    }

    @FunctionalInterface
    interface GeneratorBody {
        void write(JsonGenerator g) throws IOException;
    }
}
