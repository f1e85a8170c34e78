package io.trailproof.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.Cli;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Capture gaps against the real server (src/site/completeness.md): a client that skips numbers, one
 * that dies mid-stream, one that reports drops and one that ends its stream each get the right
 * {@code GAP} events, once, across a kill -9 and a restart of the service; late fillers, duplicates,
 * coverage with its cross-checks, and verify-export on packages with and without gaps.
 */
@Order(RunOrder.LONGEST)
class CaptureGapsIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Short enough that a skipped number is reported while the test runs. */
    private static final Map<String, String> ENV = Map.of("TRAILPROOF_CAPTURE_GAP_AFTER", "PT3S");

    @TempDir
    Path dir;

    private static String event(String agent, String capture, long seq, String extra) {
        return "{\"agent_id\":\"" + agent + "\",\"session_id\":\"s-" + agent + "\",\"capture_method\":\"python-sdk\","
                + "\"action_type\":\"TOOL_CALL\",\"action_name\":\"t\",\"capture_id\":\"" + capture
                + "\",\"capture_seq\":" + seq + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    private static void post(Api api, String body) throws Exception {
        Api.Reply r = api.post("/v1/events", body);
        assertThat(r.status()).as(r.body()).isEqualTo(201);
    }

    private static List<JsonNode> gaps(Api api, String agent) throws Exception {
        JsonNode list = api.get("/v1/events?order=asc&action_type=GAP&agent_id=" + agent).json();
        List<JsonNode> out = new ArrayList<>();
        list.forEach(out::add);
        return out;
    }

    private static String missing(JsonNode gap) {
        return gap.get("action_output").get("capture_id").asText() + " " + gap.get("action_output").get("missing");
    }

    private static JsonNode coverage(Api api, String agent) throws Exception {
        Api.Reply r = api.get("/v1/coverage?agent_id=" + URLEncoder.encode(agent, StandardCharsets.UTF_8));
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        return r.json();
    }

    @Test
    void holesBecomeGapEventsOnceAcrossAKillAndARestart() throws Exception {
        Path data = dir.resolve("data");
        Instant firstEnd;
        try (ServerProcess server = ServerProcess.start(data, ENV)) {
            Api api = server.api();
            // Skips 3 and 4: reported gap-after past the event beyond the hole.
            post(api, event("skip", "c1", 1, ""));
            post(api, event("skip", "c1", 2, ""));
            post(api, event("skip", "c1", 5, ""));
            firstEnd = Instant.now();   // a window that ends before the hole is reported or filled
            // Reports 2..3 lost: recorded at once, the rest of the hole (4) later.
            post(api, event("drop", "d1", 1, ""));
            post(api, event("drop", "d1", 5, "\"capture_dropped\":[2,3]"));
            Await.untilTrue("the reported drop is a GAP", WAIT, () -> !gaps(api, "drop").isEmpty());
            assertThat(missing(gaps(api, "drop").get(0))).isEqualTo("d1 [[2,3]]");
            // Dies mid-stream with a hole, then the service dies before the hole is due.
            post(api, event("dies", "k1", 1, ""));
            post(api, event("dies", "k1", 3, ""));
            server.kill();
        }
        try (ServerProcess server = ServerProcess.start(data, ENV)) {
            Api api = server.api();
            Await.untilTrue("the holes of before the kill are GAPs", WAIT,
                    () -> gaps(api, "skip").size() == 1 && gaps(api, "dies").size() == 1 && gaps(api, "drop").size() == 2);
            assertThat(missing(gaps(api, "skip").get(0))).isEqualTo("c1 [[3,4]]");
            assertThat(missing(gaps(api, "dies").get(0))).isEqualTo("k1 [[2,2]]");
            assertThat(missing(gaps(api, "drop").get(1))).isEqualTo("d1 [[4,4]]");
            JsonNode gap = gaps(api, "skip").get(0);
            assertThat(gap.get("session_id").asText()).isEqualTo("s-skip");
            assertThat(gap.get("action_output").get("detected_at").asText()).endsWith("Z");
            // A stream that ends with numbers missing is recorded at once.
            post(api, event("ends", "e1", 1, ""));
            post(api, event("ends", "e1", 4, "\"capture_last\":true"));
            Await.untilTrue("the end of a stream records its holes", WAIT, () -> gaps(api, "ends").size() == 1);
            assertThat(missing(gaps(api, "ends").get(0))).isEqualTo("e1 [[2,3]]");
            // A late filler is stored as usual; the GAP stays, coverage says filled.
            post(api, event("skip", "c1", 3, ""));
            post(api, event("skip", "c1", 4, ""));
            // A repeated number with another content is stored and listed, never merged.
            post(api, event("skip", "c1", 2, "\"action_input\":{\"again\":true}"));
            JsonNode session = coverage(api, "skip").get("sessions").get(0);
            assertThat(session.get("session_id").asText()).isEqualTo("s-skip");
            assertThat(session.get("paths").get("python-sdk").get("TOOL_CALL").asLong()).isEqualTo(6);
            assertThat(session.get("gaps")).hasSize(1);
            assertThat(session.get("gaps").get(0).get("state").asText()).isEqualTo("filled");
            assertThat(session.get("gaps").get(0).get("gap_event_id").asText()).isEqualTo(gap.get("id").asText());
            assertThat(session.get("duplicates")).hasSize(1);
            assertThat(session.get("duplicates").get(0).get("capture_seq").asLong()).isEqualTo(2);
            assertThat(session.get("duplicates").get(0).get("event_ids")).hasSize(2);
            // The window of the first three events: its GAP, fillers and repeated copy all came later.
            Api.Reply windowed = api.get("/v1/coverage?agent_id=skip&until=" + firstEnd);
            assertThat(windowed.status()).as(windowed.body()).isEqualTo(200);
            assertThat(windowed.json().get("sessions")).as(windowed.body()).hasSize(1);
            JsonNode early = windowed.json().get("sessions").get(0);
            assertThat(early.get("paths").get("python-sdk").get("TOOL_CALL").asLong()).isEqualTo(3);
            assertThat(early.get("gaps")).as(windowed.body()).hasSize(1);
            assertThat(early.get("gaps").get(0).get("state").asText()).isEqualTo("filled");
            assertThat(early.get("gaps").get(0).get("gap_event_id").asText()).isEqualTo(gap.get("id").asText());
            assertThat(early.get("duplicates")).isEqualTo(session.get("duplicates"));
            assertThat(coverage(api, "dies").get("sessions").get(0).get("gaps").get(0).get("state").asText())
                    .isEqualTo("open");
            long stored = api.get("/v1/stats").json().get("total_events").asLong();
            server.stop();
            // verify-export: a package with gaps, and one complete by sequence.
            Path withGaps = dir.resolve("ends.json");
            Path complete = dir.resolve("complete.json");
            try (ServerProcess again = ServerProcess.start(data, ENV)) {
                Api a = again.api();
                post(a, event("whole", "w1", 1, ""));
                post(a, event("whole", "w1", 2, "\"capture_last\":true"));
                Files.writeString(withGaps, a.get("/v1/export?agent_id=ends").body());
                Files.writeString(complete, a.get("/v1/export?agent_id=whole").body());
                // After a clean restart no hole is reported twice: once a new hole is reported, the old ones still have one GAP.
                post(a, event("late", "l1", 2, "\"capture_last\":true"));
                Await.untilTrue("the restarted service reports", WAIT, () -> gaps(a, "late").size() == 1);
                assertThat(gaps(a, "skip")).hasSize(1);
                assertThat(gaps(a, "drop")).hasSize(2);
                assertThat(gaps(a, "dies")).hasSize(1);
                assertThat(a.get("/v1/stats").json().get("total_events").asLong()).isEqualTo(stored + 4);
                crossChecks(a);
            }
            Cli.Run gapsRun = Cli.run("verify-export", withGaps.toString());
            assertThat(gapsRun.exit()).as(gapsRun.toString()).isZero();
            assertThat(gapsRun.out()).contains("capture: 1 gap (e1 seq 2-3)");
            Cli.Run completeRun = Cli.run("verify-export", complete.toString());
            assertThat(completeRun.exit()).as(completeRun.toString()).isZero();
            assertThat(completeRun.out()).contains("capture: complete by sequence");
        }
    }

    /** The LLM gateway's calls against the agent's own records, and the refusals. */
    private static void crossChecks(Api api) throws Exception {
        {
            String t = Instant.now().toString();
            String asked = "\"model\":\"m-1\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]";
            String other = "\"model\":\"m-1\",\"messages\":[{\"role\":\"user\",\"content\":\"unreported\"}]";
            post(api, "{\"agent_id\":\"llm\",\"session_id\":\"s\",\"capture_method\":\"python-sdk\",\"action_type\":\"LLM_CALL\","
                    + "\"timestamp\":\"" + t + "\",\"action_input\":{" + asked + "},\"capture_id\":\"p\",\"capture_seq\":1}");
            post(api, "{\"agent_id\":\"llm\",\"session_id\":\"s\",\"capture_method\":\"llm-gateway\",\"action_type\":\"LLM_CALL\","
                    + "\"timestamp\":\"" + t + "\",\"action_input\":{" + asked + ",\"tools\":[],\"parameters\":{}}}");
            String skipped = api.post("/v1/events", "{\"agent_id\":\"llm\",\"session_id\":\"s\",\"capture_method\":\"llm-gateway\","
                    + "\"action_type\":\"LLM_CALL\",\"timestamp\":\"" + t + "\",\"action_input\":{" + other + "}}").json()
                    .get("id").asText();
            JsonNode session = coverage(api, "llm").get("sessions").get(0);
            assertThat(session.get("paths").get("python-sdk").get("LLM_CALL").asLong()).isEqualTo(1);
            assertThat(session.get("paths").get("llm-gateway").get("LLM_CALL").asLong()).isEqualTo(2);
            assertThat(session.get("one_path_only")).hasSize(1);
            assertThat(session.get("one_path_only").get(0).get("event_id").asText()).isEqualTo(skipped);
            assertThat(session.get("one_path_only").get(0).get("path").asText()).isEqualTo("llm-gateway");
            // Refusals: 400 naming what is wrong, 404 for an unknown agent; nothing stored.
            assertThat(api.get("/v1/coverage").status()).isEqualTo(400);
            assertThat(api.get("/v1/coverage?agent_id=llm&since=yesterday").status()).isEqualTo(400);
            assertThat(api.get("/v1/coverage?agent_id=nobody").status()).isEqualTo(404);
            Api.Reply noSeq = api.post("/v1/events", "{\"agent_id\":\"llm\",\"capture_id\":\"p\"}");
            assertThat(noSeq.status()).isEqualTo(400);
            assertThat(noSeq.body()).contains("capture_seq");
            Api.Reply forged = api.post("/v1/events", "{\"agent_id\":\"llm\",\"action_type\":\"GAP\"}");
            assertThat(forged.status()).isEqualTo(400);
            assertThat(forged.body()).contains("action_type");
            assertThat(coverage(api, "llm").get("sessions").get(0).get("paths").get("llm-gateway").get("LLM_CALL").asLong())
                    .isEqualTo(2);
        }
    }
}
