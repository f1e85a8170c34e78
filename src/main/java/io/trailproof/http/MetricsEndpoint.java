package io.trailproof.http;

import io.trailproof.metrics.ServiceMetrics;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;

/** {@code GET /metrics} (src/site/operations.md): every metric in the Prometheus text format, role read. */
final class MetricsEndpoint {

    private MetricsEndpoint() {
    }

    static void answer(HttpServerExchange ex, ServiceMetrics metrics) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
        metrics.write(body);
        ex.setStatusCode(200);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, ServiceMetrics.CONTENT_TYPE);
        ex.setResponseContentLength(body.size());
        ex.getResponseSender().send(ByteBuffer.wrap(body.toByteArray()));
    }
}
