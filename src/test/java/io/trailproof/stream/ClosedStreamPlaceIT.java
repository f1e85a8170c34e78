package io.trailproof.stream;

import java.time.Duration;
import io.trailproof.testing.Await;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.WsClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that closes its stream frees its {@code stream.max-subscribers} place within a second
 * (src/site/live-stream.md#subscribers-and-limits), whether the stream was idle (nothing to write, so no
 * failed write would ever tell) or busy (events flowing), for SSE and WebSocket, for a close with a
 * FIN and one with a reset. With one place, the next stream is the proof.
 */
class ClosedStreamPlaceIT {

    /** The promise: a new stream is accepted within this long of the close. */
    private static final long FREED_WITHIN_MILLIS = 1_000;

    @TempDir
    Path dir;
    InProcessServer server;

    @BeforeEach
    void start() throws Exception {
        // A long heartbeat: an idle stream writes nothing for the whole test, so only the read side can see the close.
        server = InProcessServer.start(dir.resolve("data"), "stream.max-subscribers", "1", "stream.heartbeat", "PT60S");
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @ParameterizedTest(name = "{0}, {1}, closed with {2}")
    @CsvSource({
            "sse, idle, fin", "sse, idle, reset", "sse, busy, fin", "sse, busy, reset",
            "websocket, idle, fin", "websocket, idle, reset", "websocket, busy, fin", "websocket, busy, reset",
    })
    void aClosedStreamFreesItsPlaceWithinASecond(String transport, String load, String close) throws Exception {
        int port = server.server().port();
        Socket stream = open(port, transport.equals("websocket"));
        AtomicBoolean ingesting = new AtomicBoolean(load.equals("busy"));
        Thread ingest = Thread.ofPlatform().daemon().start(() -> ingestWhile(ingesting));
        Thread reader = Thread.ofPlatform().daemon().start(() -> drain(stream));
        try {
            if (load.equals("busy")) {
                waitForEvents(10);
            }
            assertThat(probe(port)).as("the one place is taken").isEqualTo(503);
            if (close.equals("reset")) {
                stream.setSoLinger(true, 0);
            }
            stream.close();
            Await.untilTrue("a new stream is admitted after the close", Duration.ofMillis(FREED_WITHIN_MILLIS),
                    () -> probe(port) == 200);
        } finally {
            ingesting.set(false);
            ingest.join(10_000);
            reader.join(10_000);
        }
    }

    @ParameterizedTest(name = "java.net.http WebSocket, {0}")
    @CsvSource({"idle", "busy"})
    void anAbortedJdkWebSocketFreesItsPlaceWithinASecond(String load) throws Exception {
        int port = server.server().port();
        WsClient ws = WsClient.connect(port, "/v1/stream");
        AtomicBoolean ingesting = new AtomicBoolean(load.equals("busy"));
        Thread ingest = Thread.ofPlatform().daemon().start(() -> ingestWhile(ingesting));
        try {
            if (load.equals("busy")) {
                assertThat(ws.next(10_000)).as("events flow").isNotNull();
            }
            assertThat(probe(port)).isEqualTo(503);
            ws.abort();
            Await.untilTrue("a new stream is admitted after the abort", Duration.ofMillis(FREED_WITHIN_MILLIS),
                    () -> probe(port) == 200);
        } finally {
            ingesting.set(false);
            ingest.join(10_000);
        }
    }

    /** Opens a stream over a raw socket: SSE, or a WebSocket after its handshake. */
    private static Socket open(int port, boolean websocket) throws Exception {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        String head = "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + (websocket
                ? "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
                + Base64.getEncoder().encodeToString("sixteen byte key".getBytes(StandardCharsets.US_ASCII)) + "\r\n"
                : "Accept: text/event-stream\r\n") + "\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String answer = readHead(s.getInputStream());
        assertThat(answer).startsWith(websocket ? "HTTP/1.1 101" : "HTTP/1.1 200");
        return s;
    }

    /** The status of a new SSE stream request; the probe then leaves with a reset, as an abrupt client would. */
    private int probe(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String head = readHead(s.getInputStream());
            s.setSoLinger(true, 0);
            return Integer.parseInt(head.split(" ", 3)[1]);
        }
    }

    /** Reads a response head up to its blank line. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1) {
            b.write(c);
            byte[] a = b.toByteArray();
            int n = a.length;
            if (n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') {
                break;
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    /** Reads whatever the stream sends until the socket is closed (the client side keeps up). */
    private static void drain(Socket s) {
        byte[] buf = new byte[8192];
        try {
            InputStream in = s.getInputStream();
            while (in.read(buf) != -1) {
                // dropped
            }
        } catch (IOException e) {
            // closed by the test
        }
    }

    private void ingestWhile(AtomicBoolean on) {
        Api api = server.api();
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < 20; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"agent_id\":\"busy\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step\"}");
        }
        String body = batch.append("]").toString();
        try {
            while (on.get()) {
                assertThat(api.post("/v1/batch", body).status()).isEqualTo(201);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void waitForEvents(long n) throws InterruptedException {
        long start = server.server().ledger().size();
        Await.until(n + " more events", Duration.ofSeconds(30), () -> server.server().ledger().size() >= start + n);
    }
}
