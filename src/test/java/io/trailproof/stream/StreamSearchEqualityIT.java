package io.trailproof.stream;

import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.trailproof.index.EventMatcherTest;
import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.SseClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same query matches the same events in {@code GET /v1/search} and in {@code GET /v1/stream}, on
 * the real server, over a seeded corpus of varied events and every query of {@link EventMatcherTest}
 * (with and without a filter): the stream, from 0, sends exactly the events the search finds, in log order.
 */
class StreamSearchEqualityIT {

    @TempDir
    Path dir;

    @Test
    void everyQueryStreamsExactlyWhatTheSearchFinds() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data"))) {
            Api api = server.api();
            ArrayNode batch = Api.JSON.createArrayNode();
            EventMatcherTest.inputs(new Random(1125), 300).forEach(batch::add);
            assertThat(api.post("/v1/batch", batch.toString()).status()).isEqualTo(201);
            Map<String, List<Long>> expected = new LinkedHashMap<>();
            Map<String, SseClient> streams = new LinkedHashMap<>();
            try {
                for (String q : EventMatcherTest.QUERIES) {
                    for (String filter : new String[] {"", "&agent_id=agent-007", "&label.env=prod"}) {
                        String params = "q=" + URLEncoder.encode(q, StandardCharsets.UTF_8) + filter;
                        JsonNode found = api.get("/v1/search?limit=1000&sort=timestamp&" + params).json();
                        List<Long> ids = new ArrayList<>();
                        found.get("results").forEach(r -> ids.add(r.get("log_index").asLong()));
                        ids.sort(null);
                        expected.put(params, ids);
                        streams.put(params, SseClient.open(server.server().port(), "/v1/stream?from=0&" + params));
                    }
                }
                int nonEmpty = 0;
                for (Map.Entry<String, SseClient> e : streams.entrySet()) {
                    List<Long> want = expected.get(e.getKey());
                    assertThat(e.getValue().status()).as(e.getKey()).isEqualTo(200);
                    List<Long> got = new ArrayList<>();
                    for (int i = 0; i < want.size(); i++) {
                        got.add(Long.parseLong(e.getValue().nextEvent().id()));
                    }
                    assertThat(got).as(e.getKey()).isEqualTo(want);
                    nonEmpty += want.isEmpty() ? 0 : 1;
                }
                assertThat(nonEmpty).isGreaterThan(EventMatcherTest.QUERIES.size());
                Await.nothingHappensWithin("a stream sends an event the search does not find");
                for (Map.Entry<String, SseClient> e : streams.entrySet()) {
                    e.getValue().timeout(20);
                    try {
                        SseClient.Frame extra = e.getValue().nextEvent();
                        throw new AssertionError(e.getKey() + ": an event the search does not find: " + extra);
                    } catch (SocketTimeoutException expectedTimeout) {
                        // nothing more: the stream sent exactly the search's events
                    }
                }
            } finally {
                for (SseClient c : streams.values()) {
                    c.close();
                }
            }
        }
    }
}
