package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api.Reply;
import io.trailproof.testing.InProcessServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chunk arrays of large answers are reused once their send has ended ({@code Responses.Chunks}).
 * Reused too early, one client would read another's events: many large batch answers, fresh and
 * replayed, from several connections at once, each checked item by item against its own request.
 */
class AnswerBuffersIT {

    @TempDir
    Path dir;

    private static String batch(String agent, int n) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"agent_id\":\"").append(agent).append("\",\"action_name\":\"")
                    .append(agent).append("-item-").append(i).append("\",\"metadata\":{\"pad\":\"")
                    .append("p".repeat(300)).append("\"}}");
        }
        return b.append("]").toString();
    }

    private static void assertAnswerOf(Reply r, String agent, int n) {
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        JsonNode items = r.json();
        assertThat(items.size()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(items.get(i).get("index").asInt()).isEqualTo(i);
            JsonNode event = items.get(i).get("event");
            assertThat(event.get("agent_id").asText()).isEqualTo(agent);
            assertThat(event.get("action_name").asText()).isEqualTo(agent + "-item-" + i);
        }
    }

    @Test
    void largeAnswersSentAtOnceOnManyConnectionsEachCarryOnlyTheirOwnEvents() throws Exception {
        try (InProcessServer s = InProcessServer.start(dir.resolve("data"))) {
            int clients = 6;
            int n = 700;   // ~600 KB answers: several chunks each
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            try {
                List<Future<?>> runs = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    String agent = "client-" + c;
                    runs.add(pool.submit(() -> {
                        for (int round = 0; round < 8; round++) {
                            String body = batch(agent + "-" + round, n);
                            String key = agent + "-key-" + round;
                            Reply first = IdempotencyIT.post(s.api(), s.server().port(), "/v1/batch", body, key, null);
                            assertAnswerOf(first, agent + "-" + round, n);
                            Reply replay = IdempotencyIT.post(s.api(), s.server().port(), "/v1/batch", body, key, null);
                            assertThat(replay.header("Idempotent-Replayed")).isEqualTo("true");
                            assertThat(replay.body().equals(first.body())).as("replay of %s byte for byte its first answer", key).isTrue();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : runs) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
