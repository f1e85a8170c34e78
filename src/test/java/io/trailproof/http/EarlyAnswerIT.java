package io.trailproof.http;

import io.trailproof.testing.Await;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An answer sent before the request body was read (413 for a declared length over the limit, 401,
 * 404, ...) reaches clients that write the whole body before they read (Node's {@code http}, the JDK's
 * {@code HttpClient}): the server reads and drops the rest of the body, within 64 MiB and 5 s, before
 * it closes (src/site/http-api.md#conventions). Without that, the close resets the connection under the
 * client's writes and the answer is lost with it.
 */
class EarlyAnswerIT {

    /** One MiB over the default 16 MiB body limit. */
    private static final int TOO_LARGE = 17 << 20;

    @TempDir
    Path dir;
    InProcessServer server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private int start(String... config) throws Exception {
        server = InProcessServer.start(dir.resolve("data"), config);
        return server.server().port();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/events", "/v1/batch", "/v1/traces"})
    void aClientThatWritesItsWholeBodyFirstReadsThe413(String path) throws Exception {
        int port = start();
        String answer = writeAllThenRead(port, "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + TOO_LARGE + "\r\n\r\n", body(TOO_LARGE));
        assertThat(answer).startsWith("HTTP/1.1 413").contains("\"error\":\"the request body is larger than the limit");
        assertThat(answer.toLowerCase()).contains("connection: close");
        assertThat(server.server().ledger().size()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/events", "/v1/batch", "/v1/traces"})
    void theJdkHttpClientReadsThe413(String path) throws Exception {
        int port = start();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body(TOO_LARGE))).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(Api.JSON.readTree(r.body()).get("error").asText()).contains("larger than the limit");
    }

    @Test
    void aChunkedBodyRefusedWhileArrivingIsReadToItsEndAndThe413Read() throws Exception {
        int port = start();
        ByteArrayOutputStream chunked = new ByteArrayOutputStream();
        byte[] piece = body(1 << 20);
        for (int sent = 0; sent < TOO_LARGE; sent += piece.length) {
            chunked.writeBytes((Integer.toHexString(piece.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            chunked.writeBytes(piece);
            chunked.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        chunked.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        String answer = writeAllThenRead(port, "POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n", chunked.toByteArray());
        assertThat(answer).startsWith("HTTP/1.1 413").contains("larger than the limit");
    }

    @Test
    void otherEarlyRefusalsReachTheClientToo() throws Exception {
        int port = start("auth.api-keys", "k1:ingest");
        String head = "Host: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + (4 << 20) + "\r\n";
        assertThat(writeAllThenRead(port, "POST /v1/events HTTP/1.1\r\n" + head + "\r\n", body(4 << 20)))
                .as("no key").startsWith("HTTP/1.1 401");
        assertThat(writeAllThenRead(port, "POST /v1/nowhere HTTP/1.1\r\n" + head + "Authorization: Bearer k1\r\n\r\n",
                body(4 << 20))).as("unknown path").startsWith("HTTP/1.1 404");
        assertThat(writeAllThenRead(port, "PUT /v1/events HTTP/1.1\r\n" + head + "Authorization: Bearer k1\r\n\r\n",
                body(4 << 20))).as("wrong method").startsWith("HTTP/1.1 405");
    }

    @Test
    void aBodyThatNeverEndsIsDroppedForAtMostFiveSeconds() throws Exception {
        int port = start();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                    + (1L << 40) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            // A trickle: a kilobyte every 100 ms, for as long as the server reads.
            CompletableFuture<Void> trickle = CompletableFuture.runAsync(() -> {
                byte[] kb = body(1024);
                try {
                    while (true) {
                        out.write(kb);
                        Await.pace(Duration.ofMillis(100), "the trickle: a kilobyte every 100 ms");
                    }
                } catch (IOException | InterruptedException e) {
                    // closed by the server
                }
            });
            InputStream in = s.getInputStream();
            long start = System.nanoTime();
            String head = readUntilClosed(in);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(head).startsWith("HTTP/1.1 413");
            assertThat(took).as("closed %d ms after the answer", took).isBetween(4_000L, 9_000L);
            trickle.get(30, TimeUnit.SECONDS);
        }
        assertThat(server.api().get("/health").status()).isEqualTo(200);
    }

    @Test
    void aFastBodyThatNeverEndsIsDroppedForAtMost64MiB() throws Exception {
        int port = start();
        AtomicLong sent = new AtomicLong();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(("POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                    + (1L << 40) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> {
                byte[] mb = body(1 << 20);
                try {
                    while (sent.get() < 1L << 30) {
                        out.write(mb);
                        sent.addAndGet(mb.length);
                    }
                } catch (IOException e) {
                    // closed by the server
                }
            });
            assertThat(readUntilClosed(s.getInputStream())).startsWith("HTTP/1.1 413");
            flood.get(60, TimeUnit.SECONDS);
        }
        // 64 MiB read and dropped, plus what the two sockets' buffers held when the server closed.
        assertThat(sent.get()).isGreaterThan(16L << 20).isLessThan(96L << 20);
        assertThat(server.api().get("/health").status()).isEqualTo(200);
    }

    /** Writes the head and the whole body, and only then reads the answer, as Node's {@code http} does. */
    private static String writeAllThenRead(int port, String head, byte[] body) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(30_000);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            return readUntilClosed(s.getInputStream());
        }
    }

    /** What the server sent until it closed; a reset after an answer ends it too (a reset before one is a failure). */
    private static String readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) != -1; ) {
                got.write(buf, 0, n);
            }
        } catch (IOException e) {
            if (got.size() == 0) {
                throw e;
            }
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    private static byte[] body(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 'x');
        return b;
    }
}
