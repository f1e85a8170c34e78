package io.trailproof.cli;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlainHttpGetTest {

    private HttpServer server;
    private URI base;
    private final byte[] body = new byte[3_000_000];
    private volatile String seenAuthorization;

    @BeforeEach
    void start() throws IOException {
        new Random(3).nextBytes(body);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/base/ok", ex -> {
            seenAuthorization = ex.getRequestHeaders().getFirst("Authorization");
            ex.getResponseHeaders().add("X-Root", "abc");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        });
        server.createContext("/base/denied", ex -> {
            byte[] json = "{\"error\":\"this key may not take backups\"}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(403, json.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(json);
            }
        });
        server.createContext("/base/cut", ex -> {
            ex.sendResponseHeaders(200, body.length);
            OutputStream out = ex.getResponseBody();
            out.write(body, 0, body.length / 3);
            out.flush();
            ex.close();
            throw new IOException("cut");
        });
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/base");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void readsStatusHeadersAndTheWholeBody() throws Exception {
        try (PlainHttpGet get = PlainHttpGet.open(base, "/ok", "k1", Duration.ofSeconds(5), Duration.ofSeconds(30))) {
            assertThat(get.status()).isEqualTo(200);
            assertThat(get.header("x-root")).contains("abc");
            assertThat(get.contentLength()).isEqualTo(body.length);
            assertThat(readAll(get.body())).isEqualTo(body);
        }
        assertThat(seenAuthorization).isEqualTo("Bearer k1");
    }

    @Test
    void anErrorAnswerGivesItsBody() throws Exception {
        try (PlainHttpGet get = PlainHttpGet.open(base, "/denied", null, Duration.ofSeconds(5), Duration.ofSeconds(30))) {
            assertThat(get.status()).isEqualTo(403);
            assertThat(new String(get.errorBody(), StandardCharsets.UTF_8)).contains("may not take backups");
        }
    }

    @Test
    void anAnswerCutOffIsAnErrorNotAnEnd() throws Exception {
        try (PlainHttpGet get = PlainHttpGet.open(base, "/cut", null, Duration.ofSeconds(5), Duration.ofSeconds(30))) {
            assertThat(get.status()).isEqualTo(200);
            assertThatThrownBy(() -> readAll(get.body())).isInstanceOf(IOException.class).hasMessageContaining("cut off");
        }
    }

    @Test
    void nothingListeningIsAConnectError() throws Exception {
        URI nowhere;
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nowhere = URI.create("http://127.0.0.1:" + s.getLocalPort());
        }
        assertThatThrownBy(() -> PlainHttpGet.open(nowhere, "/x", null, Duration.ofSeconds(5), Duration.ofSeconds(30)))
                .isInstanceOf(ConnectException.class);
    }

    /** A server that takes the request and never answers: given up after the stall time, not waited on forever. */
    @Test
    void aSilentServerIsGivenUp() throws Exception {
        try (var silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            URI uri = URI.create("http://127.0.0.1:" + silent.getLocalPort());
            assertThatThrownBy(() -> PlainHttpGet.open(uri, "/v1/admin/backup", null, Duration.ofSeconds(5),
                    Duration.ofMillis(300))).isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("given up");
        }
    }

    private static byte[] readAll(ReadableByteChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(8 << 20);
        while (ch.read(buf) >= 0) {
            if (!buf.hasRemaining()) {
                throw new IllegalStateException("more than expected");
            }
        }
        return Arrays.copyOf(buf.array(), buf.position());
    }
}
