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
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
        ex.setResponseContentLength(body.length);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
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
    static byte[] write(GeneratorBody body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            body.write(g);
        }
        return out.toByteArray();
    }

    @FunctionalInterface
    interface GeneratorBody {
        void write(JsonGenerator g) throws IOException;
    }
}
