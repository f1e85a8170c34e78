package io.trailproof.stream;

import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.SseClient;
import io.trailproof.testing.WsClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A stalled SSE client and a stalled WebSocket client while 100,000 events are
 * ingested with POST /v1/batch. Ingestion completes (it never waits for a subscriber; the rate
 * comparison is in bench/), and both streams end by the overflow rule: every event below the
 * resume point was delivered, in order, and a new stream from it continues where they stopped.
 */
class StalledClientsIT {

    private static final int EVENTS = 100_000;
    private static final int BATCH = 1_000;

    @TempDir
    Path dir;

    @Test
    void stalledSubscribersEndWithTheOverflowRuleAndIngestionCompletes() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            Api api = server.api();
            int port = server.server().port();
            try (SseClient sse = SseClient.open(port, 4096, "/v1/stream")) {
                WsClient ws = WsClient.connect(port, "/v1/stream", true);
                for (int b = 0; b < EVENTS / BATCH; b++) {
                    StringBuilder body = new StringBuilder("[");
                    for (int i = 0; i < BATCH; i++) {
                        body.append(i == 0 ? "" : ",").append("{\"agent_id\":\"agent-").append(i % 16)
                                .append("\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"call ").append(b * BATCH + i)
                                .append("\"}");
                    }
                    assertThat(api.post("/v1/batch", body.append("]").toString()).status()).isEqualTo(201);
                }
                assertThat(server.server().ledger().size()).isEqualTo(EVENTS);

                // SSE: events 0..N-1 in order, then the overflow event, then the end of the response.
                long expected = 0;
                SseClient.Frame f;
                while ((f = sse.nextEvent()) != null && f.isEvent()) {
                    assertThat(Long.parseLong(f.id())).isEqualTo(expected++);
                }
                assertThat(f).as("the stream ends with an overflow event").isNotNull();
                assertThat(f.event()).isEqualTo("overflow");
                long resumeFrom = Api.JSON.readTree(f.data()).get("resume_from").asLong();
                assertThat(resumeFrom).isEqualTo(expected).isLessThan(EVENTS);
                assertThat(sse.next()).as("nothing after the overflow").isNull();

                // WebSocket: the same rule, as close code 1013.
                ws.resume();
                WsClient.Closed closed = ws.closed.get(60, TimeUnit.SECONDS);
                assertThat(closed.code()).isEqualTo(1013);
                Matcher m = Pattern.compile("slow consumer; resume from (\\d+)").matcher(closed.reason());
                assertThat(m.matches()).as(closed.reason()).isTrue();
                long wsResume = Long.parseLong(m.group(1));
                assertThat(wsResume).isLessThan(EVENTS);
                long next = 0;
                for (String msg; (msg = ws.messages.poll()) != null; ) {
                    assertThat(Api.JSON.readTree(msg).get("log_index").asLong()).isEqualTo(next++);
                }
                assertThat(next).isEqualTo(wsResume);

                // Reconnecting from the resume point loses nothing.
                try (SseClient again = SseClient.open(port, "/v1/stream?from=" + resumeFrom)) {
                    assertThat(again.nextEvent().id()).isEqualTo(Long.toString(resumeFrom));
                }
                try (SseClient again = SseClient.open(port, "/v1/stream", "Last-Event-ID: " + (wsResume - 1))) {
                    assertThat(again.nextEvent().id()).isEqualTo(Long.toString(wsResume));
                }
            }
        }
    }
}
