package io.trailproof.http;

import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.trailproof.config.ApiKey;
import io.trailproof.ledger.ReplicaOutcome;
import io.trailproof.otlp.BoundedGunzip;
import io.trailproof.otlp.OtlpCodec;
import io.trailproof.otlp.OtlpEncoding;
import io.trailproof.otlp.TraceIngest;
import io.trailproof.otlp.UndecodableBody;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.nio.ByteBuffer;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code POST /v1/traces}, OTLP/HTTP trace ingestion (src/site/ingestion.md#otlp). Only the HTTP part: the
 * content type and coding, the answer shapes; decoding is {@link OtlpCodec}, storing is
 * {@link TraceIngest}.
 *
 * <p>Answers: 200 with an {@code ExportTraceServiceResponse} in the request's encoding (with
 * {@code partial_success} when spans were refused); 400 with a {@code google.rpc.Status} in the
 * request's encoding for a body that does not decode; 415 for another content type or coding;
 * 413 (the body, compressed or decompressed, over the limit), 503 and the auth refusals as
 * everywhere, with {@code {"error"}}.
 *
 * <p>In cluster mode the spans are mapped, checked and redacted here and produced as one
 * record ({@link ClusterWrites#spans}); every node stores those whose mark it has not recorded, and
 * the answer (with {@code X-Tree-Size}) comes after this node applied the record.
 */
final class TraceEndpoint {

    private final TraceIngest ingest;
    private final RequestBodies bodies;
    private final ClusterWrites cluster;

    /** @param cluster the cluster write path, or null in the embedded mode */
    TraceEndpoint(TraceIngest ingest, RequestBodies bodies, ClusterWrites cluster) {
        this.ingest = ingest;
        this.bodies = bodies;
        this.cluster = cluster;
    }

    void register(Router router) {
        router.add("POST", "/v1/traces", ApiKey.Role.INGEST, (ex, p) -> post(ex), null,
                List.of(OtlpEncoding.PROTOBUF.mediaType(), OtlpEncoding.JSON.mediaType()));
    }

    private void post(HttpServerExchange ex) throws Exception {
        OtlpEncoding encoding = OtlpEncoding.ofContentType(ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE));
        if (encoding == null) {
            throw new ApiException(415, "send OTLP traces as Content-Type: application/x-protobuf or application/json");
        }
        byte[] body = bodies.raw(ex);
        String coding = ex.getRequestHeaders().getFirst(Headers.CONTENT_ENCODING);
        ExportTraceServiceRequest request;
        try {
            if (coding != null && coding.trim().equalsIgnoreCase("gzip")) {
                body = BoundedGunzip.inflate(body, bodies.maxBodyBytes());
                bodies.holdBytes(ex, body.length);
            } else if (coding != null && !coding.isBlank() && !coding.trim().equalsIgnoreCase("identity")) {
                throw new ApiException(415, "Content-Encoding " + Params.shorten(coding.trim().toLowerCase(Locale.ROOT))
                        + " is not supported; send the body as it is or with gzip");
            }
            request = OtlpCodec.decode(body, encoding);
        } catch (BoundedGunzip.TooLarge e) {
            throw new ApiException(413, e.getMessage());
        } catch (UndecodableBody e) {
            send(ex, 400, encoding, OtlpCodec.status(encoding, OtlpCodec.INVALID_ARGUMENT, e.getMessage()));
            return;
        }
        bodies.holdEvents(ex, TraceIngest.spanCount(request));
        if (cluster != null) {
            TraceIngest.Prepared prepared = TraceIngest.prepare(request);
            TraceIngest.Result result;
            if (prepared.events().isEmpty()) {
                result = prepared.result(List.of());
            } else {
                ReplicaOutcome.Stored stored = cluster.spans(prepared.events(), prepared.marks());
                ex.getResponseHeaders().put(ClusterWrites.TREE_SIZE, stored.end());
                result = prepared.result(stored.outcomes());
            }
            send(ex, 200, encoding, OtlpCodec.response(encoding, result.rejected(), result.firstError()));
            return;
        }
        TraceIngest.Result result;
        try {
            result = ingest.ingest(request);
        } catch (TraceIngest.SpansInFlight e) {
            throw new ApiException(503, e.getMessage(), Map.of("Retry-After", "1"));
        }
        send(ex, 200, encoding, OtlpCodec.response(encoding, result.rejected(), result.firstError()));
    }

    private static void send(HttpServerExchange ex, int status, OtlpEncoding encoding, byte[] body) {
        ex.setStatusCode(status);
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, encoding.mediaType());
        ex.setResponseContentLength(body.length);
        ex.getResponseSender().send(ByteBuffer.wrap(body));
    }
}
