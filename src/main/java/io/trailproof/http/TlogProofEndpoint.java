package io.trailproof.http;

import io.trailproof.checkpoint.TlogProofs;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@code GET /v1/merkle/proof?event_id=...&format=tlog-proof} (src/site/checkpoints.md): the event's
 * {@code c2sp.org/tlog-proof@v1} file as {@code text/plain}. It may sign a checkpoint on the spot
 * (a durable write), so it never runs on an I/O thread: the non-blocking form hands it to a worker.
 */
final class TlogProofEndpoint {
    static final String FORMAT = "tlog-proof";

    private final TlogProofs proofs;

    TlogProofEndpoint(TlogProofs proofs) {
        this.proofs = proofs;
    }

    /** True when the request names a {@code format}: this endpoint answers it, or refuses an unknown one. */
    boolean asked(HttpServerExchange ex) {
        return ex.getQueryParameters().containsKey("format");
    }

    Router.Endpoint endpoint() {
        return (ex, p) -> answer(body(ex)).write(ex);
    }

    CompletionStage<Router.Answer> start(HttpServerExchange ex) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return answer(body(ex));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ex.getConnection().getWorker());
    }

    private String body(HttpServerExchange ex) throws Exception {
        var format = ex.getQueryParameters().get("format");
        if (format.size() != 1 || !FORMAT.equals(format.getFirst())) {
            throw ApiException.badRequest("format must be " + FORMAT + " (leave it out for the JSON proof)");
        }
        String eventId = Params.eventId(new Params(ex).required("event_id"), "event_id");
        try {
            return proofs.proof(eventId).orElseThrow(() -> ApiException.notFound("no event with id " + eventId));
        } catch (IllegalStateException e) {
            // src/site/http-api.md#conventions: a 503 says when to retry (as the OpenAPI document promises for every 503)
            throw new ApiException(503, e.getMessage(), Map.of("Retry-After", "30"));
        }
    }

    private static Router.Answer answer(String text) {
        return ex -> {
            byte[] b = text.getBytes(StandardCharsets.UTF_8);
            ex.setStatusCode(200);
            ex.getResponseHeaders().put(Headers.CONTENT_TYPE, "text/plain; charset=utf-8");
            ex.setResponseContentLength(b.length);
            ex.getResponseSender().send(ByteBuffer.wrap(b));
        };
    }
}
