package io.trailproof.stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.SseClient;
import io.trailproof.testing.WsClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/** GET /v1/stream on the real server (src/site/live-stream.md): both transports, framing, resume, filters, limits, stop. */
class StreamIT {

    @TempDir
    Path dir;
    InProcessServer server;
    Api api;

    private void start(String... config) throws Exception {
        server = InProcessServer.start(dir.resolve("data"), config);
        api = server.api();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private int port() {
        return server.server().port();
    }

    /** Posts {@code n} events of {@code agent} in one batch; returns their stored JSON texts in log order. */
    private List<String> post(int n, String agent) throws Exception {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"agent_id\":\"").append(agent)
                    .append("\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step ").append(i).append("\"}");
        }
        Api.Reply r = api.post("/v1/batch", b.append("]").toString());
        assertThat(r.status()).isEqualTo(201);
        List<String> ids = new ArrayList<>();
        r.json().forEach(item -> ids.add(item.get("event").get("id").asText()));
        return ids;
    }

    private String stored(String id) throws Exception {
        Api.Reply r = api.get("/v1/events/" + id);
        assertThat(r.status()).isEqualTo(200);
        return r.body();
    }

    @Test
    void sseSendsNewEventsByteForByteWithTheirLogIndex() throws Exception {
        start();
        post(3, "before");
        try (SseClient sse = SseClient.open(port(), "/v1/stream")) {
            assertThat(sse.status()).isEqualTo(200);
            assertThat(sse.header("Content-Type")).startsWith("text/event-stream");
            List<String> ids = post(2, "after");
            for (int i = 0; i < 2; i++) {
                SseClient.Frame f = sse.nextEvent();
                assertThat(f.event()).isEqualTo("event");
                assertThat(f.id()).isEqualTo(Long.toString(3 + i));
                assertThat(f.data()).isEqualTo(stored(ids.get(i)));
            }
        }
    }

    @Test
    void catchUpTurnsLiveWithoutAGapOrADuplicateWhileEventsArrive() throws Exception {
        // Catch-up fills half the buffer (1,500) at a time, so 3,990 old events take three rounds; the
        // buffer holds a half-full catch-up plus every live event, so even a reader that falls behind
        // cannot overflow and any gap or duplicate is the dispatcher's.
        start("stream.max-buffered-events", "3000");
        post(4000, "old");
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; i < 30; i++) {
                    post(50, "new");
                }
            } catch (Throwable t) {
                writerFailure.set(t);
            }
        });
        try (SseClient sse = SseClient.open(port(), "/v1/stream?from=10")) {
            for (long expected = 10; expected < 5500; expected++) {
                SseClient.Frame f = sse.nextEvent();
                assertThat(f.event()).as("at %d", expected).isEqualTo("event");
                assertThat(Long.parseLong(f.id())).isEqualTo(expected);
                assertThat(Api.JSON.readTree(f.data()).get("log_index").asLong()).isEqualTo(expected);
            }
            writer.join();
            assertThat(writerFailure.get()).isNull();
            sse.timeout(300);
            assertThatThrownBy(sse::nextEvent).isInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void filtersAndQueriesSelectEvents() throws Exception {
        start();
        String q = URLEncoder.encode("action_name:\"step 3\" OR action_name:\"step 5\"", StandardCharsets.UTF_8);
        try (SseClient byAgent = SseClient.open(port(), "/v1/stream?from=0&agent_id=b");
             SseClient byQuery = SseClient.open(port(), "/v1/stream?from=0&q=" + q + "&agent_id=a");
             SseClient byLabel = SseClient.open(port(), "/v1/stream?label.env=prod&action_type=HANDOFF")) {
            post(8, "a");
            post(4, "b");
            api.post("/v1/events", "{\"agent_id\":\"c\",\"action_type\":\"HANDOFF\",\"labels\":{\"env\":\"prod\"}}");
            for (int i = 0; i < 4; i++) {
                assertThat(byAgent.nextEvent().id()).isEqualTo(Long.toString(8 + i));
            }
            assertThat(byQuery.nextEvent().id()).isEqualTo("3");
            assertThat(byQuery.nextEvent().id()).isEqualTo("5");
            assertThat(byLabel.nextEvent().id()).isEqualTo("12");
        }
    }

    @Test
    void badRequestsAre400BeforeAnyEventOnBothTransports() throws Exception {
        start();
        post(5, "a");
        String[] bad = {"/v1/stream?since=2026-01-01", "/v1/stream?limit=5", "/v1/stream?from=abc", "/v1/stream?from=-1",
                "/v1/stream?from=6", "/v1/stream?from=1.5", "/v1/stream?q=" + URLEncoder.encode("a AND (", StandardCharsets.UTF_8),
                "/v1/stream?q=", "/v1/stream?agent_id=", "/v1/stream?label.=x"};
        for (String path : bad) {
            try (SseClient sse = SseClient.open(port(), path)) {
                assertThat(sse.status()).as(path).isEqualTo(400);
                assertThat(Api.JSON.readTree(sse.body()).get("error").asText()).as(path).isNotBlank();
            }
            try {
                WsClient.connect(port(), path);
                fail("upgrade accepted for " + path);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(WebSocketHandshakeException.class);
                assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode()).as(path).isEqualTo(400);
            }
        }
        for (String last : new String[] {"5", "x", "-1", "99"}) {
            try (SseClient sse = SseClient.open(port(), "/v1/stream", "Last-Event-ID: " + last)) {
                assertThat(sse.status()).as(last).isEqualTo(400);
                assertThat(sse.body()).contains("Last-Event-ID");
            }
        }
        try (SseClient sse = SseClient.open(port(), "/v1/stream?from=5")) {
            assertThat(sse.status()).as("from equal to the size is the live edge").isEqualTo(200);
        }
        try (SseClient broken = SseClient.open(port(), "/v1/stream", "Upgrade: websocket", "Connection: Upgrade")) {
            assertThat(broken.status()).as("an upgrade without a key").isEqualTo(400);
            assertThat(Api.JSON.readTree(broken.body()).get("error").asText()).contains("WebSocket");
        }

    }

    @Test
    void lastEventIdResumesAfterItAndWinsOverFrom() throws Exception {
        start();
        post(10, "a");
        try (SseClient sse = SseClient.open(port(), "/v1/stream?from=0", "Last-Event-ID: 6")) {
            assertThat(sse.nextEvent().id()).isEqualTo("7");
            assertThat(sse.nextEvent().id()).isEqualTo("8");
        }
    }

    @Test
    void heartbeatsKeepAWaitingStreamOpenPastTheIdleTimeout() throws Exception {
        start("server.idle-timeout-ms", "300", "stream.heartbeat", "PT0.8S");
        try (SseClient sse = SseClient.open(port(), "/v1/stream");
             SseClient quiet = SseClient.open(port(), "/v1/stream")) {
            WsClient ws = WsClient.connect(port(), "/v1/stream");
            sse.timeout(5000);
            SseClient.Frame first = sse.next(); // the opening comment
            assertThat(first.event()).isNull();
            SseClient.Frame beat = sse.next();
            assertThat(beat.comment()).isEqualTo("keep-alive");
            assertThat(beat.event()).isNull();
            // Quiet for more than one heartbeat period, well past the 300 ms idle timeout.
            Await.until("a second WebSocket heartbeat", Duration.ofSeconds(20), () -> ws.pings.get() >= 2);
            List<String> ids = post(1, "late");
            SseClient.Frame f = sse.nextEvent();
            assertThat(f.data()).isEqualTo(stored(ids.get(0)));
            assertThat(quiet.nextEvent().id()).isEqualTo("0");
            assertThat(ws.next(5000)).isEqualTo(stored(ids.get(0)));
            assertThat(ws.pings.get()).isGreaterThanOrEqualTo(1);
            assertThat(ws.closed).isNotDone();
        }
    }

    @Test
    void webSocketSendsOneTextMessagePerEventAndCloses1001OnStop() throws Exception {
        start();
        post(3, "a");
        WsClient ws = WsClient.connect(port(), "/v1/stream?from=1");
        List<String> ids = post(2, "b");
        assertThat(Api.JSON.readTree(ws.next(5000)).get("log_index").asLong()).isEqualTo(1);
        assertThat(Api.JSON.readTree(ws.next(5000)).get("log_index").asLong()).isEqualTo(2);
        assertThat(ws.next(5000)).isEqualTo(stored(ids.get(0)));
        assertThat(ws.next(5000)).isEqualTo(stored(ids.get(1)));
        try (SseClient sse = SseClient.open(port(), "/v1/stream")) {
            sse.next();
            long started = System.nanoTime();
            server.close();
            server = null;
            assertThat(ws.closed.get(5, TimeUnit.SECONDS).code()).isEqualTo(1001);
            sse.timeout(5000);
            for (SseClient.Frame f; (f = sse.next()) != null; ) {
                assertThat(f.event()).isNull();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void whatAWebSocketClientSendsIsIgnoredUnlessItIsTooLarge() throws Exception {
        start();
        WsClient ws = WsClient.connect(port(), "/v1/stream");
        ws.send("hello");
        List<String> ids = post(1, "a");
        assertThat(ws.next(5000)).isEqualTo(stored(ids.get(0)));
        ws.send("x".repeat(10_000));
        try {
            ws.closed.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // the server dropped the connection: also an end
        }
        assertThat(ws.closed).isDone();
    }

    @Test
    void maxSubscribersRefusesOneMoreWith503() throws Exception {
        start("stream.max-subscribers", "2");
        for (int i = 0; i < 3; i++) { // refused handshakes hold no place
            try (SseClient broken = SseClient.open(port(), "/v1/stream", "Upgrade: websocket", "Connection: Upgrade")) {
                assertThat(broken.status()).isEqualTo(400);
            }
        }
        try (SseClient a = SseClient.open(port(), "/v1/stream")) {
            WsClient b = WsClient.connect(port(), "/v1/stream");
            try (SseClient c = SseClient.open(port(), "/v1/stream")) {
                assertThat(c.status()).isEqualTo(503);
                assertThat(c.header("Retry-After")).isNotNull();
                assertThat(Api.JSON.readTree(c.body()).get("error").asText()).contains("stream.max-subscribers");
            }
            b.abort();
        }
        Await.untilTrue("closed streams free their places", Duration.ofSeconds(5), () -> {
            try (SseClient again = SseClient.open(port(), "/v1/stream")) {
                return again.status() == 200;
            }
        });
    }

    @Test
    void streamsNeedTheReadRole() throws Exception {
        start("auth.api-keys", "w:ingest,r:read");
        try (SseClient none = SseClient.open(port(), "/v1/stream");
             SseClient writer = SseClient.open(port(), "/v1/stream", "Authorization: Bearer w");
             SseClient reader = SseClient.open(port(), "/v1/stream", "Authorization: Bearer r")) {
            assertThat(none.status()).isEqualTo(401);
            assertThat(writer.status()).isEqualTo(403);
            assertThat(reader.status()).isEqualTo(200);
        }
    }

    static JsonNode json(String s) throws Exception {
        return Api.JSON.readTree(s);
    }
}
