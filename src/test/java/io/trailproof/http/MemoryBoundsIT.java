package io.trailproof.http;

import io.trailproof.metrics.PrometheusText;
import io.trailproof.testing.Await;
import static org.assertj.core.api.Assertions.assertThat;

import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * At the HTTP layer, memory stays bounded whatever clients send. A real server
 * process with a 256 MB heap that exits on an {@code OutOfMemoryError} (so one cannot pass
 * unnoticed) takes concurrent 10,000-event batches and 200 connections that declare 16 MiB bodies
 * and send nothing; a request beyond the memory set aside for requests is answered 503 with
 * {@code Retry-After} (or 413 if it could never fit), never 500. And {@code server.max-connections}
 * bounds the connections served at once.
 */
@Order(RunOrder.LONG)
class MemoryBoundsIT {

    private static final Map<String, String> SMALL_HEAP =
            Map.of("TRAILPROOF_JAVA_OPTS", "-Xmx256m -XX:+ExitOnOutOfMemoryError");

    /** How long the clients post: 6 s by default, 25 s in the nightly profile (src/site/testing.md#nightly-profile). */
    private static final int LOAD_SECONDS = Integer.getInteger("trailproof.memory-bounds.seconds", 6);

    @TempDir
    Path dir;

    /** About 450 bytes, as the performance targets and the report use. */
    static String event(long i, int client) {
        return "{\"agent_id\":\"mem-" + client + "-" + (i % 20) + "\",\"session_id\":\"s-" + (i % 97)
                + "\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"search_database\",\"action_status\":\"success\","
                + "\"duration_ms\":" + (i % 1000) + ",\"action_input\":{\"query\":\"quarterly revenue by region " + i
                + "\",\"filters\":{\"year\":2026,\"regions\":[\"EU\",\"US\"]}},\"action_output\":{\"rows\":" + (i % 50)
                + ",\"ok\":true,\"summary\":\"revenue grew in the EU and fell in the US\"},\"labels\":{\"env\":\"prod\","
                + "\"team\":\"finance\"},\"metadata\":{\"model\":\"m-1\",\"temperature\":0.7,\"trace\":\""
                + Long.toHexString(i * 0x9E3779B97F4A7C15L) + "\"}}";
    }

    static byte[] batch(int client, long first, int events) {
        StringBuilder b = new StringBuilder(events * 460).append('[');
        for (int i = 0; i < events; i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(event(first + i, client));
        }
        return b.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void concurrentLargeBatchesIntoA256MegabyteHeapAre201Or503NeverA500() throws Exception {
        int clients = 4;
        long runNanos = TimeUnit.SECONDS.toNanos(LOAD_SECONDS);
        try (ServerProcess server = ServerProcess.start(dir.resolve("data"), SMALL_HEAP)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/v1/batch");
            Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            AtomicInteger stored = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            List<Future<?>> running = new ArrayList<>();
            long end = System.nanoTime() + runNanos;
            for (int c = 0; c < clients; c++) {
                int client = c;
                running.add(pool.submit(() -> {
                    long next = 0;
                    while (System.nanoTime() < end) {   // load for a fixed run, not a wait
                        byte[] body = batch(client, next, 10_000);
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                                HttpResponse.BodyHandlers.ofString());
                        statuses.computeIfAbsent(r.statusCode(), s -> new AtomicInteger()).incrementAndGet();
                        if (r.statusCode() == 201) {
                            stored.addAndGet(10_000);
                            next += 10_000;
                        } else if (r.statusCode() == 503) {
                            if (r.headers().firstValue("Retry-After").isEmpty()) {
                                wrong.add("503 without Retry-After: " + r.body());
                            }
                            Await.pace(Duration.ofMillis(100), "the client's back-off after a 503");
                        } else {
                            wrong.add(r.statusCode() + ": " + shorten(r.body()));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get(3, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(wrong).as("answers other than 201 or 503 (statuses " + statuses + ")").isEmpty();
            assertThat(server.process().isAlive()).as("the server is up (it exits on OutOfMemoryError)").isTrue();
            assertThat(stored.get()).as("batches were stored, not only refused: " + statuses).isGreaterThan(0);
            Api.Reply health = server.api().get("/health");
            assertThat(health.status()).isEqualTo(200);
            assertThat(health.json().get("tree_size").asLong()).isEqualTo(stored.get());
            assertThat(server.startupOutput()).doesNotContain("OutOfMemoryError");
        }
    }

    @Test
    void declaredLengthsThatNeverArriveCostNoMemory() throws Exception {
        try (ServerProcess server = ServerProcess.start(dir.resolve("data"), SMALL_HEAP)) {
            List<Socket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    Socket s = new Socket("127.0.0.1", server.port());
                    s.getOutputStream().write(("POST /v1/batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 16777216\r\n\r\n[").getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    idle.add(s);
                }
                Api api = server.api();
                Await.untilTrue("the server has taken in the 200 heads", Duration.ofSeconds(60),
                        () -> PrometheusText.value(PrometheusText.parse(api.get("/metrics").body()),
                                "trailproof_requests_in_flight", Map.of()) >= 200 + 1);   // + the scrape itself
                // 200 x 16 MiB is 3.2 GB: had the bodies been set aside, the 256 MB process would have exited.
                Api.Reply r = api.post("/v1/events", "{\"agent_id\":\"still-here\"}");
                assertThat(r.status()).as(r.body()).isEqualTo(201);
                assertThat(api.post("/v1/batch", new String(batch(0, 0, 1000), StandardCharsets.UTF_8)).status())
                        .isEqualTo(201);
                assertThat(api.get("/health").status()).isEqualTo(200);
                assertThat(server.process().isAlive()).isTrue();
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aBodyThatCouldNeverFitTheMemoryForRequestsIsA413() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"),
                "limits.max-in-flight-bytes", "1048576")) {
            Api api = server.api();
            Api.Reply tooBig = api.postExpectingContinue("/v1/batch", new String(batch(0, 0, 3000), StandardCharsets.UTF_8));
            assertThat(tooBig.status()).as(tooBig.body()).isEqualTo(413);
            assertThat(tooBig.json().get("error").asText()).contains("limits.max-in-flight-bytes", "larger heap");
            // 7,000 tiny events are few bytes but many events: sealing them is what would not fit.
            StringBuilder tiny = new StringBuilder("[");
            for (int i = 0; i < 7000; i++) {
                tiny.append(i == 0 ? "" : ",").append("{\"agent_id\":\"t\"}");
            }
            Api.Reply many = api.post("/v1/batch", tiny.append(']').toString());
            assertThat(many.status()).as(many.body()).isEqualTo(413);
            assertThat(api.post("/v1/batch", new String(batch(0, 0, 1000), StandardCharsets.UTF_8)).status())
                    .isEqualTo(201);
            assertThat(api.get("/health").json().get("tree_size").asLong()).isEqualTo(1000);
        }
    }

    /**
     * Kept-alive idle connections give way to a new one near {@code server.max-connections}; at the limit
     * in busy connections (bodies in progress) a further client waits until one closes.
     */
    @Test
    void idleConnectionsGiveWayAndBusyOnesMakeOthersWait() throws Exception {
        int max = 8;
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"),
                "server.max-connections", String.valueOf(max))) {
            int port = server.server().port();
            List<Socket> open = new ArrayList<>();
            try {
                // Idle ones first, on a fresh server: connections a client has closed but the server has not
                // yet seen close would otherwise be the longest idle, and give way instead.
                for (int i = 0; i < max; i++) {
                    Socket s = new Socket("127.0.0.1", port);
                    open.add(s);
                    assertThat(healthOn(s)).as("kept-alive connection " + i).startsWith("HTTP/1.1 200");
                }
                try (Socket extra = new Socket("127.0.0.1", port)) {
                    extra.setSoTimeout(2_000);
                    send(extra);
                    assertThat(readOrTimeout(extra.getInputStream())).as("an idle connection gave way at once")
                            .startsWith("HTTP/1.1 200");
                }
                open.get(0).setSoTimeout(5_000);
                assertThat(open.get(0).getInputStream().read()).as("the longest idle was closed").isEqualTo(-1);
                for (Socket s : open) {
                    s.close();
                }
                open.clear();
                for (int i = 0; i < max; i++) {
                    Socket s = new Socket("127.0.0.1", port);
                    open.add(s);
                    s.getOutputStream().write(("POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
                }
                try (Socket extra = new Socket("127.0.0.1", port)) {
                    extra.setSoTimeout(1500);
                    send(extra);
                    assertThat(readOrTimeout(extra.getInputStream())).as("a connection beyond the limit is not served")
                            .isEmpty();
                    open.remove(0).close();
                    extra.setSoTimeout(10_000);
                    assertThat(readOrTimeout(extra.getInputStream())).as("served once another connection closed")
                            .startsWith("HTTP/1.1 200");
                }
            } finally {
                for (Socket s : open) {
                    s.close();
                }
            }
        }
    }

    private static String healthOn(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        send(s);
        return readOrTimeout(s.getInputStream());
    }

    private static void send(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** The first bytes the server sends, or "" when nothing comes within the socket's timeout. */
    private static String readOrTimeout(InputStream in) throws IOException {
        byte[] buf = new byte[4096];
        try {
            int n = in.read(buf);
            return n <= 0 ? "" : new String(buf, 0, n, StandardCharsets.US_ASCII);
        } catch (SocketTimeoutException e) {
            return "";
        }
    }

    private static String shorten(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
