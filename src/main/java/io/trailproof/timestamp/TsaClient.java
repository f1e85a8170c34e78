package io.trailproof.timestamp;

import io.trailproof.core.timestamp.Rfc3161;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Sends an RFC 3161 query over HTTP (RFC 3161 section 3.4) and returns the raw answer. Connect and
 * read are each bounded by the configured timeout; redirects are not followed (a redirect could lead
 * off the allow-list); answers over {@link #MAX_ANSWER_BYTES} are refused.
 */
public final class TsaClient {

    /** A time-stamp response with a few certificates is a few KiB; anything far larger is not one. */
    public static final int MAX_ANSWER_BYTES = 1 << 20;

    private final HttpClient http;
    private final Duration timeout;

    public TsaClient(Duration timeout) {
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * @return the answer's body
     * @throws TimestampRefusal (TSA_FAILED) saying what went wrong: unreachable, timeout, non-200 status, too large
     */
    public byte[] exchange(URI tsa, byte[] query) throws TimestampRefusal {
        HttpRequest request = HttpRequest.newBuilder(tsa).timeout(timeout)
                .header("Content-Type", Rfc3161.QUERY_MEDIA_TYPE)
                .header("Accept", Rfc3161.REPLY_MEDIA_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(query)).build();
        try {
            HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                if (response.statusCode() != 200) {
                    throw failed("the TSA at " + tsa.getHost() + " answered HTTP " + response.statusCode());
                }
                byte[] body = in.readNBytes(MAX_ANSWER_BYTES + 1);
                if (body.length > MAX_ANSWER_BYTES) {
                    throw failed("the TSA at " + tsa.getHost() + " sent more than " + MAX_ANSWER_BYTES
                            + " bytes, which is not a time-stamp response");
                }
                return body;
            }
        } catch (HttpConnectTimeoutException e) {
            throw failed("the TSA at " + tsa.getHost() + " could not be reached within " + timeout.toMillis() + " ms");
        } catch (HttpTimeoutException e) {
            throw failed("the TSA at " + tsa.getHost() + " did not answer within " + timeout.toMillis() + " ms");
        } catch (ConnectException e) {
            throw failed("the TSA at " + tsa + " is unreachable (connection refused or no route)");
        } catch (IOException e) {
            throw failed("talking to the TSA at " + tsa + " failed: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failed("the request to the TSA was interrupted (the service is stopping)");
        }
    }

    private static TimestampRefusal failed(String message) {
        return new TimestampRefusal(TimestampRefusal.Reason.TSA_FAILED, message);
    }
}
