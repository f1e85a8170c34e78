package io.trailproof.core.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Coverage from stored events (src/site/completeness.md#coverage): paths, gaps, duplicates, cross-checks. */
class CoverageBuilderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private int next;

    private JsonNode event(String session, String method, String type, String extra) throws Exception {
        return JSON.readTree("{\"id\":\"e" + (++next) + "\",\"agent_id\":\"a\"" + (session == null ? "" : ",\"session_id\":\"" + session + "\"")
                + (method == null ? "" : ",\"capture_method\":\"" + method + "\"") + ",\"action_type\":\"" + type + "\""
                + (extra.isEmpty() ? "" : "," + extra) + "}");
    }

    private static String call(String model, String content, String at) {
        return "\"timestamp\":\"" + at + "\",\"action_input\":{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\""
                + content + "\"}]}";
    }

    @Test
    void pathsComeFromCaptureMethodAndUnknownOnesAreHttp() {
        assertThat(CapturePaths.of("python-sdk")).isEqualTo("python-sdk");
        assertThat(CapturePaths.of("claude-code-hook")).isEqualTo("claude-code-hook");
        assertThat(CapturePaths.of("codex-hook")).isEqualTo("codex-hook");
        assertThat(CapturePaths.of("-hook")).isEqualTo("http");
        assertThat(CapturePaths.of("My Hook-hook")).isEqualTo("http");
        assertThat(CapturePaths.of("curl")).isEqualTo("http");
        assertThat(CapturePaths.of(null)).isEqualTo("http");
    }

    @Test
    void gapsAreFilledOnlyWhenEveryNumberArrivedAndDuplicatesAreListed() throws Exception {
        CoverageBuilder b = new CoverageBuilder("a");
        b.add(event("s", "python-sdk", "T", "\"capture_id\":\"c\",\"capture_seq\":1"));
        b.add(event("s", "python-sdk", "T", "\"capture_id\":\"c\",\"capture_seq\":5"));
        b.add(event("s", null, "GAP", "\"action_output\":{\"capture_id\":\"c\",\"missing\":[[2,3],[4,4]],\"detected_at\":\"x\"}"));
        b.add(event("s", "python-sdk", "T", "\"capture_id\":\"c\",\"capture_seq\":2"));
        b.add(event("s", "python-sdk", "T", "\"capture_id\":\"c\",\"capture_seq\":3"));
        b.add(event("s", "python-sdk", "T", "\"capture_id\":\"c\",\"capture_seq\":3"));
        b.add(event(null, "curl", "T", ""));
        ObjectNode out = b.build();
        JsonNode s = out.get("sessions").get(0);
        assertThat(s.get("paths").toString()).isEqualTo("{\"python-sdk\":{\"T\":5}}");
        assertThat(s.get("gaps").get(0).get("state").asText()).isEqualTo("filled");
        assertThat(s.get("gaps").get(1).get("state").asText()).isEqualTo("open");
        assertThat(s.get("gaps").get(0).get("gap_event_id").asText()).isEqualTo("e3");
        assertThat(s.get("duplicates").toString())
                .isEqualTo("[{\"capture_id\":\"c\",\"capture_seq\":3,\"event_ids\":[\"e5\",\"e6\"]}]");
        JsonNode none = out.get("sessions").get(1);
        assertThat(none.get("session_id").isNull()).isTrue();
        assertThat(none.get("paths").toString()).isEqualTo("{\"http\":{\"T\":1}}");
    }

    @Test
    void callsSeenByOnePathOnlyAreListedOncePerSighting() throws Exception {
        CoverageBuilder b = new CoverageBuilder("a");
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "one", "2026-01-01T00:00:00Z")));
        b.add(event("s", "llm-gateway", "LLM_CALL", call("m", "one", "2026-01-01T00:00:01Z")));
        // The same messages twice in process, once at the gateway: one of the two is unmatched.
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "two", "2026-01-01T00:01:00Z")));
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "two", "2026-01-01T00:01:02Z")));
        b.add(event("s", "llm-gateway", "LLM_CALL", call("m", "two", "2026-01-01T00:01:01Z")));
        // Another model, or too far apart in time: not a match.
        b.add(event("s", "llm-gateway", "LLM_CALL", call("other", "three", "2026-01-01T00:02:00Z")));
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "three", "2026-01-01T00:02:00Z")));
        b.add(event("s", "llm-gateway", "LLM_CALL", call("m", "four", "2026-01-01T00:10:00Z")));
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "four", "2026-01-01T00:12:00Z")));
        JsonNode one = b.build().get("sessions").get(0).get("one_path_only");
        assertThat(one.toString()).isEqualTo("[{\"event_id\":\"e4\",\"path\":\"python-sdk\"},"
                + "{\"event_id\":\"e6\",\"path\":\"llm-gateway\"},{\"event_id\":\"e7\",\"path\":\"python-sdk\"},"
                + "{\"event_id\":\"e8\",\"path\":\"llm-gateway\"},{\"event_id\":\"e9\",\"path\":\"python-sdk\"}]");
    }

    @Test
    void withOnlyOneSideNothingIsCompared() throws Exception {
        CoverageBuilder b = new CoverageBuilder("a");
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "one", "2026-01-01T00:00:00Z")));
        assertThat(b.build().get("sessions").get(0).get("one_path_only")).isEmpty();
    }

    private static String at(String time) {
        return "\"timestamp\":\"2026-01-01T" + time + "Z\"";
    }

    private static String seq(String time, long n) {
        return at(time) + ",\"capture_id\":\"c\",\"capture_seq\":" + n;
    }

    private static String gap(String time, long from, long to) {
        return at(time) + ",\"action_output\":{\"capture_id\":\"c\",\"missing\":[[" + from + "," + to + "]],\"detected_at\":\"x\"}";
    }

    /**
     * A window [00:10, 00:20) read with the events around it: only the window's events are counted,
     * but a filler after it fills its gap, a GAP recorded after it still lists its hole, a copy
     * outside it makes a duplicate, and a counterpart across its edge matches its call.
     */
    @Test
    void aWindowCountsItsOwnEventsAndReadsTheirMeaningFromTheWholeLog() throws Exception {
        CoverageBuilder b = new CoverageBuilder("a", Instant.parse("2026-01-01T00:10:00Z"),
                Instant.parse("2026-01-01T00:20:00Z"));
        b.add(event("s", "python-sdk", "T", seq("00:01:00", 1)));                      // e1, before
        b.add(event("s", "python-sdk", "T", seq("00:02:00", 3)));                      // e2, before: hole 2
        b.add(event("s", null, "GAP", gap("00:03:00", 2, 2)));                         // e3, before, not the window's
        b.add(event("s", "python-sdk", "T", seq("00:11:00", 4)));                      // e4
        b.add(event("s", "python-sdk", "T", seq("00:12:00", 7)));                      // e5: hole 5-6
        b.add(event("s", "python-sdk", "T", seq("00:19:59.999999999", 9)));            // e6: hole 8, last instant
        b.add(event("s", "python-sdk", "T", seq("00:20:00", 10)));                     // e7, until is exclusive
        b.add(event("s", null, "GAP", gap("00:21:00", 5, 6)));                         // e8, after: its hole is in the window
        b.add(event("s", null, "GAP", gap("00:21:00", 8, 8)));                         // e9
        b.add(event("s", "python-sdk", "T", seq("00:30:00", 5)));                      // e10: late fillers
        b.add(event("s", "python-sdk", "T", seq("00:30:00", 6)));                      // e11
        b.add(event("s", "python-sdk", "T", seq("00:31:00", 4)));                      // e12: a copy of e4's number
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "edge", "2026-01-01T00:19:50Z")));    // e13
        b.add(event("s", "llm-gateway", "LLM_CALL", call("m", "edge", "2026-01-01T00:20:05Z")));   // e14, after
        b.add(event("s", "llm-gateway", "LLM_CALL", call("m", "alone", "2026-01-01T00:15:00Z")));  // e15
        b.add(event("s", "python-sdk", "LLM_CALL", call("m", "outside", "2026-01-01T00:20:30Z"))); // e16, after
        JsonNode s = b.build().get("sessions").get(0);
        assertThat(s.get("paths").toString()).isEqualTo("{\"llm-gateway\":{\"LLM_CALL\":1},"
                + "\"python-sdk\":{\"LLM_CALL\":1,\"T\":3}}");
        assertThat(s.get("gaps").toString()).isEqualTo("[{\"capture_id\":\"c\",\"from\":5,\"to\":6,\"state\":\"filled\","
                + "\"gap_event_id\":\"e8\"},{\"capture_id\":\"c\",\"from\":8,\"to\":8,\"state\":\"open\",\"gap_event_id\":\"e9\"}]");
        assertThat(s.get("duplicates").toString())
                .isEqualTo("[{\"capture_id\":\"c\",\"capture_seq\":4,\"event_ids\":[\"e4\",\"e12\"]}]");
        assertThat(s.get("one_path_only").toString()).isEqualTo("[{\"event_id\":\"e15\",\"path\":\"llm-gateway\"}]");
    }

    /** Without bounds, or with bounds around everything, the answer is the whole log's. */
    @Test
    void anOpenOrEnclosingWindowAnswersWhatTheWholeLogAnswers() throws Exception {
        List<JsonNode> events = new ArrayList<>();
        events.add(event("s", "python-sdk", "T", seq("00:01:00", 1)));
        events.add(event("s", "python-sdk", "T", seq("00:02:00", 4)));
        events.add(event("s", null, "GAP", gap("00:03:00", 2, 3)));
        events.add(event("s", "python-sdk", "T", seq("00:04:00", 2)));
        events.add(event("s", "python-sdk", "T", seq("00:05:00", 2)));
        events.add(event("t", "llm-gateway", "LLM_CALL", call("m", "x", "2026-01-01T00:06:00Z")));
        events.add(event("t", "python-sdk", "LLM_CALL", call("m", "y", "2026-01-01T00:06:00Z")));
        CoverageBuilder whole = new CoverageBuilder("a");
        CoverageBuilder open = new CoverageBuilder("a", null, null);
        CoverageBuilder enclosing = new CoverageBuilder("a", Instant.parse("2026-01-01T00:00:00Z"),
                Instant.parse("2026-01-02T00:00:00Z"));
        for (JsonNode e : events) {
            whole.add(e);
            open.add(e);
            enclosing.add(e);
        }
        ObjectNode expected = whole.build();
        assertThat(expected.get("sessions").get(0).get("gaps")).hasSize(1);
        assertThat(expected.get("sessions").get(1).get("one_path_only")).hasSize(2);
        assertThat(open.build()).isEqualTo(expected);
        assertThat(enclosing.build()).isEqualTo(expected);
        CoverageBuilder before = new CoverageBuilder("a", null, Instant.parse("2026-01-01T00:00:00Z"));
        events.forEach(before::add);
        assertThat(before.build().get("sessions")).isEmpty();
    }

    @Test
    void theMessagesHashIsTheRfc8785FormsSha256() throws Exception {
        String a = CoverageBuilder.messagesHash(JSON.readTree("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"));
        String b = CoverageBuilder.messagesHash(JSON.readTree("{\"messages\":[{\"content\":\"x\",\"role\":\"user\"}]}"));
        assertThat(a).isEqualTo(b).hasSize(64);
        assertThat(CoverageBuilder.messagesHash(JSON.readTree("{\"input\":\"hi\"}"))).hasSize(64);
        assertThat(CoverageBuilder.messagesHash(JSON.readTree("{\"model\":\"m\"}"))).isNull();
    }
}
