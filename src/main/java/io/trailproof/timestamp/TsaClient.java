package io.trailproof.timestamp;

import io.trailproof.core.timestamp.Rfc3161;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends an RFC 3161 query over HTTP (RFC 3161 section 3.4) and returns the raw answer. The whole
 * exchange (connecting, sending, the status and every byte of the body) must end within the
 * configured timeout; redirects are not followed (a redirect could lead off the allow-list); an answer
 * is read only up to {@link #MAX_ANSWER_BYTES}.
 *
 * <p>Every way the exchange can fail (refused, no route, timed out, an HTTP status other than 200,
 * an answer too large) is refused with the same sentence, {@link #unreachable}: the answer must not
 * tell whoever names a URL whether a port is closed or open. What exactly happened goes to the log.
 */
public final class TsaClient {

    private static final System.Logger LOG = System.getLogger(TsaClient.class.getName());

    /** A time-stamp response with a few certificates is a few KiB; anything far larger is not one. */
    public static final int MAX_ANSWER_BYTES = 1 << 20;

    private final Duration timeout;
    /**
     * Built by the first exchange: an HTTP client (its selector thread, the JDK's default TLS context)
     * costs about a tenth of a server's start, and a server stamps nothing in its first minute.
     */
    private HttpClient http;

    public TsaClient(Duration timeout) {
        this.timeout = timeout;
    }

    private synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
        }
        return http;
    }

    /**
     * @return the answer's body
     * @throws TimestampRefusal (TSA_FAILED) {@link #unreachable} for every failure of the exchange
     */
    public byte[] exchange(URI tsa, byte[] query) throws TimestampRefusal {
        HttpRequest request = HttpRequest.newBuilder(tsa).timeout(timeout)
                .header("Content-Type", Rfc3161.QUERY_MEDIA_TYPE)
                .header("Accept", Rfc3161.REPLY_MEDIA_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(query)).build();
        CompletableFuture<HttpResponse<byte[]>> exchange = http().sendAsync(request, info -> info.statusCode() == 200
                ? new BoundedBody(MAX_ANSWER_BYTES) : HttpResponse.BodySubscribers.replacing(null));
        try {
            HttpResponse<byte[]> response = exchange.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (response.statusCode() != 200) {
                throw unreachable(tsa, "it answered HTTP " + response.statusCode());
            }
            return response.body();
        } catch (TimeoutException e) {
            exchange.cancel(true);
            throw unreachable(tsa, "no complete answer within " + timeout.toMillis() + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw unreachable(tsa, cause.toString());
        } catch (InterruptedException e) {
            exchange.cancel(true);
            Thread.currentThread().interrupt();
            throw new TimestampRefusal(TimestampRefusal.Reason.TSA_FAILED,
                    "the request to the TSA was interrupted (the service is stopping)");
        }
    }

    /**
     * The one answer to a TSA that could not be talked to, or that answered something other than an
     * RFC 3161 response; {@code detail} goes to the log only.
     */
    static TimestampRefusal unreachable(URI tsa, String detail) {
        LOG.log(System.Logger.Level.WARNING, "timestamp: the TSA at " + tsa + " failed: " + detail);
        return new TimestampRefusal(TimestampRefusal.Reason.TSA_FAILED, "the TSA at " + tsa
                + " is unreachable or not a TSA (no RFC 3161 answer; the server log has the details)");
    }

    /** Collects a body of at most {@code max} bytes; a longer one is cancelled and fails the exchange. */
    private static final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
        private final int max;
        private final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream();
        private Flow.Subscription subscription;

        BoundedBody(int max) {
            this.max = max;
        }

        @Override
        public CompletionStage<byte[]> getBody() {
            return result;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer b : items) {
                if (result.isDone()) {
                    return;
                }
                if (body.size() + (long) b.remaining() > max) {
                    subscription.cancel();
                    result.completeExceptionally(new IllegalStateException("the answer is longer than " + max
                            + " bytes, which no time-stamp response is"));
                    return;
                }
                byte[] chunk = new byte[b.remaining()];
                b.get(chunk);
                body.writeBytes(chunk);
            }
        }

        @Override
        public void onError(Throwable t) {
            result.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            result.complete(body.toByteArray());
        }
    }
}
