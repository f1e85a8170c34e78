package io.trailproof.http;

import io.trailproof.testing.Api;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.RunOrder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Body limits, read timeouts and draining against the real server, with raw sockets where a
 * well-behaved HTTP client would not do what an attacker does. The time bounds here only guard
 * against hangs; they are many times the configured timeouts.
 */
@Order(RunOrder.MOSTLY_WAITING)
class LimitsAndTimeoutsIT {

    @TempDir
    Path dir;

    private static final String EVENT_HEAD = "{\"agent_id\":\"limits\",\"error_message\":\"";

    /** A raw connection: what was received, and whether the server has closed it. */
    private static final class Raw implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        final InputStream in;

        Raw(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(200);
            out = socket.getOutputStream();
            in = socket.getInputStream();
        }

        void send(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }

        /** Reads until the server closes the connection or {@code guardMillis} pass; returns what came. */
        String readUntilClosed(long guardMillis) throws Exception {
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                Await.untilTrue("the server closes the connection", Duration.ofMillis(guardMillis), () -> {
                    try {
                        int n = in.read(buf);
                        if (n < 0) {
                            return true;
                        }
                        got.write(buf, 0, n);
                        return false;
                    } catch (SocketTimeoutException e) {
                        return false;   // nothing yet: keep waiting
                    } catch (IOException e) {
                        return true;    // reset by the server: closed too
                    }
                });
            } catch (AssertionError e) {
                throw new AssertionError("the server did not close the connection within " + guardMillis + " ms; got: " + got, e);
            }
            return got.toString(StandardCharsets.UTF_8);
        }

        /** True when the server has closed the connection (a read sees the end or a reset). */
        boolean closedByServer() throws IOException {
            socket.setSoTimeout(10);
            try {
                return in.read() < 0;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            } finally {
                socket.setSoTimeout(200);
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static long treeSize(Api api) throws Exception {
        return api.get("/v1/merkle/root").json().get("tree_size").asLong();
    }

    @Test
    void declaredBodyOverTheLimitIs413BeforeAnyOfItIsSent() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("d"), "limits.max-body-bytes", "65536")) {
            try (Raw raw = new Raw(server.server().port())) {
                raw.send("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 100000000\r\n\r\n");
                String answer = raw.readUntilClosed(15_000);
                assertThat(answer).startsWith("HTTP/1.1 413").contains("{\"error\":\"the request body is larger than the limit of 65536 bytes\"}");
            }
            assertThat(treeSize(server.api())).isZero();
        }
    }

    @Test
    void chunkedBodyOverTheLimitIs413WhileStillArriving() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("d"), "limits.max-body-bytes", "65536")) {
            long sendAtMost = 256L << 20;
            AtomicLong sent = new AtomicLong();
            try (Raw raw = new Raw(server.server().port())) {
                raw.send("POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n");
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                    byte[] chunk = ("2000\r\n" + "x".repeat(0x2000) + "\r\n").getBytes(StandardCharsets.US_ASCII);
                    try {
                        raw.out.write(("%x\r\n%s\r\n".formatted(EVENT_HEAD.length() + 1, "[" + EVENT_HEAD))
                                .getBytes(StandardCharsets.US_ASCII));
                        while (sent.get() < sendAtMost) {
                            raw.out.write(chunk);
                            sent.addAndGet(chunk.length);
                        }
                    } catch (IOException e) {
                        // the server closed the connection: expected
                    }
                });
                String answer = raw.readUntilClosed(60_000);
                assertThat(answer).startsWith("HTTP/1.1 413").contains("\"error\":\"the request body is larger than the limit");
                assertThat(answer.toLowerCase()).contains("connection: close");
                writer.get(60, TimeUnit.SECONDS);
            }
            // The server stopped reading near the limit: far less than the client tried to send got through.
            assertThat(sent.get()).isLessThan(sendAtMost);
            Api api = server.api();
            assertThat(treeSize(api)).isZero();
            assertThat(api.post("/v1/events", "{\"agent_id\":\"after-413\"}").status()).isEqualTo(201);
        }
    }

    @Test
    void silentAndTricklingClientsAreCutOff() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("d"), "server.idle-timeout-ms", "1000",
                "server.header-timeout-ms", "1000", "server.body-timeout-ms", "2000")) {
            int port = server.server().port();
            // Connects and sends nothing.
            try (Raw silent = new Raw(port)) {
                silent.readUntilClosed(20_000);
            }
            // Sends the request head one byte a second: it would need a minute, the server waits a second.
            try (Raw trickle = new Raw(port)) {
                String head = "GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + "p".repeat(40) + "\r\n\r\n";
                assertThat(trickleUntilClosed(trickle, head, 20_000)).isLessThan(head.length());
            }
            // Sends a complete head, then the body one byte a second.
            try (Raw trickle = new Raw(port)) {
                String body = "{\"agent_id\":\"slow\",\"error_message\":\"" + "s".repeat(80) + "\"}";
                trickle.send("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: " + body.length() + "\r\n\r\n");
                assertThat(trickleUntilClosed(trickle, body, 30_000)).isLessThan(body.length());
            }
            // A chunked body on a console path, which answers without reading it: the body time-out
            // applies all the same.
            try (Raw trickle = new Raw(port)) {
                trickle.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
                String chunks = "1\r\na\r\n".repeat(30);
                assertThat(trickleUntilClosed(trickle, chunks, 30_000)).isLessThan(chunks.length());
            }
            // A kept-alive connection that goes quiet after a request is closed too.
            try (Raw keptAlive = new Raw(port)) {
                keptAlive.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                assertThat(keptAlive.readUntilClosed(20_000)).startsWith("HTTP/1.1 200");
            }
            assertThat(treeSize(server.api())).isZero();
        }
    }

    /** Sends {@code text} a byte a second until the server closes; returns how many bytes went out. */
    private static int trickleUntilClosed(Raw raw, String text, long guardMillis) throws Exception {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        AtomicInteger sent = new AtomicInteger();
        Await.untilTrue("the server closes a trickling connection", Duration.ofMillis(guardMillis), () -> {
            if (raw.closedByServer()) {
                return true;
            }
            int i = sent.get();
            if (i < bytes.length) {
                try {
                    raw.out.write(bytes[i]);
                    raw.out.flush();
                    sent.incrementAndGet();
                } catch (IOException e) {
                    return true;
                }
            }
            // With the read above, about one byte a second.
            Await.pace(Duration.ofMillis(800), "the trickle");
            return false;
        });
        return sent.get();
    }

    @Test
    void slowBodiesHoldNoWorker() throws Exception {
        // Default timeouts: a slow body could stay for a minute. Far more slow bodies than worker threads.
        try (InProcessServer server = InProcessServer.start(dir.resolve("d"))) {
            int port = server.server().port();
            List<Raw> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    Raw raw = new Raw(port);
                    slow.add(raw);
                    raw.send("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n{\"agent_id\":");
                }
                HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
                String base = "http://127.0.0.1:" + port;
                for (int i = 0; i < 20; i++) {
                    HttpResponse<String> posted = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/events"))
                            .timeout(Duration.ofSeconds(20)).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"agent_id\":\"served\"}")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(posted.statusCode()).isEqualTo(201);
                    HttpResponse<String> read = client.send(HttpRequest.newBuilder(URI.create(base + "/v1/verify?agent_id=served"))
                            .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(read.statusCode()).isEqualTo(200);
                }
                for (Raw raw : slow) {
                    assertThat(raw.closedByServer()).isFalse();
                }
            } finally {
                for (Raw raw : slow) {
                    raw.close();
                }
            }
            assertThat(treeSize(server.api())).isEqualTo(20);
        }
    }

    @Test
    void drainingAnswers503WithRetryAfterAndLetsRequestsInFlightFinish() throws Exception {
        InProcessServer server = InProcessServer.start(dir.resolve("d"));
        Api api = server.api();
        String body = "{\"agent_id\":\"in-flight\"}";
        try (Raw inFlight = new Raw(server.server().port())) {
            inFlight.send("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body.substring(0, 5));
            Await.until("the partial request is in flight", Duration.ofSeconds(30),
                    () -> server.server().requestsInFlight() >= 1);
            CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
                try {
                    server.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            AtomicReference<Reply> draining = new AtomicReference<>();
            Await.untilTrue("a 503 while draining", Duration.ofSeconds(20), () -> {
                Reply r = api.get("/health");
                draining.set(r);
                return r.status() == 503;
            });
            Reply refused = draining.get();
            assertThat(refused).as("a 503 while draining").isNotNull();
            assertThat(refused.header("Retry-After")).isEqualTo("10");
            assertThat(refused.json().get("error").asText()).contains("shutting down");
            assertThat(closing).isNotDone();

            inFlight.send(body.substring(5));
            String answer = inFlight.readUntilClosed(30_000);
            assertThat(answer).startsWith("HTTP/1.1 201");
            closing.get(30, TimeUnit.SECONDS);
        }
        try (InProcessServer reopened = InProcessServer.start(dir.resolve("d"))) {
            assertThat(treeSize(reopened.api())).isEqualTo(1);
        }
    }
}
