package io.trailproof.bench;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * How the load generator talks to the server under test: each client thread keeps one keep-alive
 * connection of the plain client ({@link PlainHttp}); with {@code --jdk-client} the JDK's
 * {@code HttpClient} is used instead, to see what the client costs. The port is read at each
 * request, so that a restarted server is followed.
 */
final class LoadClient {

    private final IntSupplier port;
    private final BooleanSupplier jdkClient;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).executor(Executors.newFixedThreadPool(8)).build();
    private final ThreadLocal<PlainHttp> connection = new ThreadLocal<>();

    LoadClient(IntSupplier port, BooleanSupplier jdkClient) {
        this.port = port;
        this.jdkClient = jdkClient;
    }

    PlainHttp.Response post(String path, String body) throws IOException, InterruptedException {
        if (jdkClient.getAsBoolean()) {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
            return new PlainHttp.Response(r.statusCode(), r.body());
        }
        return connection().post(path, body.getBytes(StandardCharsets.UTF_8));
    }

    PlainHttp.Response get(String path) throws IOException, InterruptedException {
        if (jdkClient.getAsBoolean()) {
            HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            return new PlainHttp.Response(r.statusCode(), r.body());
        }
        try {
            return connection().get(path);
        } catch (EOFException e) {
            // The server closed this kept-alive connection while it was idle (its idle time-out): a GET
            // is safe to send again, once, on a new connection, as HTTP clients do.
            closeConnection();
            return connection().get(path);
        }
    }

    /** GETs {@code path} and counts its body's bytes without keeping them (exports). */
    long drain(String path) throws IOException, InterruptedException {
        if (!jdkClient.getAsBoolean()) {
            return connection().drain(path);
        }
        HttpResponse<InputStream> resp = http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        long bytes = 0;
        try (InputStream in = resp.body()) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                bytes += n;
            }
        }
        return bytes;
    }

    /** Closes this thread's connection (client threads end with their scenario). */
    void closeConnection() throws IOException {
        PlainHttp c = connection.get();
        if (c != null) {
            c.close();
            connection.remove();
        }
    }

    private PlainHttp connection() throws IOException {
        PlainHttp c = connection.get();
        if (c == null || c.port() != port.getAsInt()) {
            if (c != null) {
                c.close();
            }
            c = new PlainHttp(port.getAsInt());
            connection.set(c);
        }
        return c;
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port.getAsInt() + path);
    }
}
