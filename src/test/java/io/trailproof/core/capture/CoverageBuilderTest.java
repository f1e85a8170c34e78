package io.trailproof.core.capture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

    @Test
    void theMessagesHashIsTheRfc8785FormsSha256() throws Exception {
        String a = CoverageBuilder.messagesHash(JSON.readTree("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"));
        String b = CoverageBuilder.messagesHash(JSON.readTree("{\"messages\":[{\"content\":\"x\",\"role\":\"user\"}]}"));
        assertThat(a).isEqualTo(b).hasSize(64);
        assertThat(CoverageBuilder.messagesHash(JSON.readTree("{\"input\":\"hi\"}"))).hasSize(64);
        assertThat(CoverageBuilder.messagesHash(JSON.readTree("{\"model\":\"m\"}"))).isNull();
    }
}
