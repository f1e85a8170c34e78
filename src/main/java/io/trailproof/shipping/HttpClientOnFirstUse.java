package io.trailproof.shipping;

import java.net.http.HttpClient;
import java.time.Duration;

/**
 * The JDK's HTTP client, built by the first request rather than with its owner. Building one sets up
 * the JDK's default TLS context (its trust store parsed) and its logging (a search of every jar of
 * the class path for a logging backend): a few hundred milliseconds that a command which sends
 * nothing at once, such as the MCP proxy passing its first message, should not wait for. The first
 * request, on the thread that sends it, pays them instead. Safe for concurrent use.
 */
public final class HttpClientOnFirstUse {

    private final Duration connectTimeout;
    private HttpClient client;

    public HttpClientOnFirstUse(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    /** The client, built now if this is the first call. */
    public synchronized HttpClient get() {
        if (client == null) {
            client = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
        }
        return client;
    }
}
