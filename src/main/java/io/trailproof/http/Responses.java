package io.trailproof.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

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

    /** An answer written by {@link #write}: its chunks are sent in order, as one body. */
    static void bytes(HttpServerExchange ex, int status, ByteBuffer[] body) {
        long length = 0;
        for (ByteBuffer b : body) {
            length += b.remaining();
        }
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.setResponseContentLength(length);
        ex.getResponseSender().send(body);
    }

    static void error(HttpServerExchange ex, int status, String message) throws IOException {
        json(ex, status, MAPPER.createObjectNode().put("error", message));
    }

    /**
     * Answers with the refusal's status, headers and message. When part of the request body was
     * left unread the connection is closed after the answer, rather than read to the end.
     */
    static void problem(HttpServerExchange ex, ApiException e) throws IOException {
        for (java.util.Map.Entry<String, String> h : e.headers().entrySet()) {
            ex.getResponseHeaders().put(new io.undertow.util.HttpString(h.getKey()), h.getValue());
        }
        if (!ex.isRequestComplete()) {
            ex.setPersistent(false);
        }
        error(ex, e.status(), e.getMessage());
    }

    /** Builds a JSON document with a streaming generator, for answers that embed stored events raw. */
    static ByteBuffer[] write(GeneratorBody body) throws IOException {
        return write(4096, body);
    }

    /**
     * As {@link #write(GeneratorBody)}, with the expected size. The answer is held in chunks of at
     * most {@link Chunks#CHUNK_BYTES}, never in one array as large as itself, and is not copied as
     * it grows.
     */
    static ByteBuffer[] write(int expectedBytes, GeneratorBody body) throws IOException {
        Chunks out = new Chunks(expectedBytes);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            body.write(g);
        }
        return out.written();
    }

    /**
     * Output held in chunks. Why not one array: G1 allocates an array over half a region (512 KB with
     * the 1 MB regions of heaps under 2 GB) as a "humongous" object, and each such allocation starts a
     * concurrent marking cycle whose Remark pause took 5-11 ms. A batch answer of 1,000 events is about
     * 780 KB: every batch started a cycle, and those pauses were the p99 of a replayed batch (issue #12)
     * and CPU taken from ingest (issue #19).
     */
    static final class Chunks extends OutputStream {
        static final int CHUNK_BYTES = 128 * 1024;

        private final List<ByteBuffer> full = new ArrayList<>();
        private byte[] current;
        private int used;

        Chunks(int expectedBytes) {
            current = new byte[Math.max(256, Math.min(expectedBytes, CHUNK_BYTES))];
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
            current = new byte[CHUNK_BYTES];
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
