package io.trailproof.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

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
    static ByteBuffer write(GeneratorBody body) throws IOException {
        return write(4096, body);
    }

    /** As {@link #write(GeneratorBody)}, with the expected size, so that a large answer is not copied as it grows. */
    static ByteBuffer write(int expectedBytes, GeneratorBody body) throws IOException {
        Buffer out = new Buffer(expectedBytes);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            body.write(g);
        }
        return out.written();
    }

    /** The written bytes without the copy {@code toByteArray} makes. */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer(int size) {
            super(size);
        }

        ByteBuffer written() {
            return ByteBuffer.wrap(buf, 0, count);
        }
    }

    @FunctionalInterface
    interface GeneratorBody {
        void write(JsonGenerator g) throws IOException;
    }
}
