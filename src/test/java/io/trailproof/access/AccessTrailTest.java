package io.trailproof.access;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The access trail's queue: records become valid ACCESS events, written in batches, and close writes the rest. */
class AccessTrailTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-01T10:15:30.123456789Z"), ZoneOffset.UTC);

    @Test
    void aReadBecomesOneAccessEventOfTheServiceAgent() {
        List<List<ObjectNode>> batches = new ArrayList<>();
        AccessTrail trail = new AccessTrail(b -> batches.add(List.copyOf(b)), CLOCK);
        trail.record(new AccessTrail.Read("GET /v1/search", "alice", "GET", "/v1/search", "q=x", 200, 7));
        trail.flush();
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0).get(0).toString()).isEqualTo("{\"agent_id\":\"trailproof.access\","
                + "\"action_type\":\"ACCESS\",\"action_name\":\"GET /v1/search\",\"action_status\":\"success\","
                + "\"timestamp\":\"2026-03-01T10:15:30.123456Z\",\"action_input\":{\"who\":\"alice\",\"method\":\"GET\","
                + "\"path\":\"/v1/search\",\"query\":\"q=x\"},\"action_output\":{\"status\":200,\"results\":7}}");
    }

    @Test
    void queuedReadsAreWrittenInBatchesInOrderAndCloseWritesTheRest() {
        List<List<ObjectNode>> batches = new ArrayList<>();
        AccessTrail trail = new AccessTrail(b -> batches.add(List.copyOf(b)), CLOCK);
        int n = AccessTrail.MAX_BATCH * 2 + 5;
        for (int i = 0; i < n; i++) {
            trail.record(new AccessTrail.Read("GET /v1/events/{id}", "k" + i, "GET", "/v1/events/" + i, "", 404, -1));
        }
        trail.close();
        assertThat(batches).extracting(List::size).containsExactly(AccessTrail.MAX_BATCH, AccessTrail.MAX_BATCH, 5);
        List<ObjectNode> all = batches.stream().flatMap(List::stream).toList();
        for (int i = 0; i < n; i++) {
            assertThat(all.get(i).at("/action_input/who").asText()).isEqualTo("k" + i);
            assertThat(all.get(i).at("/action_output/results").isNull()).isTrue();
            assertThat(all.get(i).get("action_status").asText()).isEqualTo("error");
        }
    }

    @Test
    void aFailedWriteLosesOnlyItsBatchAndLaterReadsAreStillWritten() {
        List<ObjectNode> written = new ArrayList<>();
        boolean[] fail = {true};
        AccessTrail trail = new AccessTrail(b -> {
            if (fail[0]) {
                throw new IllegalStateException("disk gone");
            }
            written.addAll(b);
        }, CLOCK);
        trail.record(new AccessTrail.Read("GET /v1/search", "a", "GET", "/v1/search", "", 200, 0));
        trail.flush();
        fail[0] = false;
        trail.record(new AccessTrail.Read("GET /v1/search", "b", "GET", "/v1/search", "", 200, 0));
        trail.flush();
        assertThat(written).extracting(e -> e.at("/action_input/who").asText()).containsExactly("b");
    }
}
