package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.shipping.EventContent;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;
import io.trailproof.mcp.ToolCallRecorder.Direction;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ToolCallRecorderTest {

    private static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");
    private static final long MS = 1_000_000L;

    private final List<ObjectNode> events = new ArrayList<>();
    private final ToolCallRecorder recorder = new ToolCallRecorder(null, "/usr/bin/npx", "session-1", events::add);

    private long seq;

    private Sequencer.Stamp stamp(long atMillis) {
        return new Sequencer.Stamp(++seq, T0.plusMillis(atMillis), atMillis * MS);
    }

    private void client(String json, long atMillis) {
        recorder.message(Direction.CLIENT_TO_SERVER, json.getBytes(StandardCharsets.UTF_8), stamp(atMillis));
    }

    private void server(String json, long atMillis) {
        recorder.message(Direction.SERVER_TO_CLIENT, json.getBytes(StandardCharsets.UTF_8), stamp(atMillis));
    }

    private void initialize() {
        client("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}", 0);
        server("{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"serverInfo\":{\"name\":\"files\",\"version\":\"9\"}}}", 1);
        client("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 2);
    }

    @Test
    void aCallTheGateLetThroughCarriesItsDecisionOrSaysTheGateWasUnavailable() throws Exception {
        initialize();
        JsonNode proposed = StrictJson.parse("{\"path\":\"/a\"}".getBytes(StandardCharsets.UTF_8), 10);
        byte[] call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"read\",\"arguments\":{\"path\":\"/a\"}}}"
                .getBytes(StandardCharsets.UTF_8);
        recorder.message(Direction.CLIENT_TO_SERVER, call, stamp(10), new ToolCallRecorder.GateMark("d-1", proposed));
        byte[] other = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"read\"}}"
                .getBytes(StandardCharsets.UTF_8);
        recorder.message(Direction.CLIENT_TO_SERVER, other, stamp(11), new ToolCallRecorder.GateMark(null, null));
        assertThat(events).hasSize(2);
        assertThat(events.get(0).get("decision_id").asText()).isEqualTo("d-1");
        assertThat(events.get(0).get("action_input")).isEqualTo(proposed);
        assertThat(events.get(0).get("metadata").has("gate")).isFalse();
        assertThat(events.get(1).has("decision_id")).isFalse();
        assertThat(events.get(1).get("metadata").get("gate").asText()).isEqualTo("unavailable");
    }

    @Test
    void aCallAndItsAnswerAreAPairWithTheServersNameDurationAndStatus() {
        initialize();
        client("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"read\",\"arguments\":{\"path\":\"/a\"}}}", 10);
        server("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}", 135);
        assertThat(events).hasSize(2);
        ObjectNode call = events.get(0);
        ObjectNode result = events.get(1);
        assertThat(call.get("agent_id").asText()).isEqualTo("mcp:files");
        assertThat(call.get("session_id").asText()).isEqualTo("session-1");
        assertThat(call.get("action_type").asText()).isEqualTo("TOOL_CALL");
        assertThat(call.get("action_name").asText()).isEqualTo("read");
        assertThat(call.get("action_input").toString()).isEqualTo("{\"path\":\"/a\"}");
        assertThat(call.get("timestamp").asText()).isEqualTo("2026-03-01T10:00:00.010000Z");
        assertThat(call.get("metadata").get("jsonrpc_id").asText()).isEqualTo("7");
        assertThat(call.get("metadata").get("mcp_server_version").asText()).isEqualTo("9");
        // The messages' numbers: initialize, its answer and notifications/initialized took 1 to 3.
        assertThat(call.get("metadata").get("proxy_seq").asLong()).isEqualTo(4);
        assertThat(result.get("metadata").get("proxy_seq").asLong()).isEqualTo(5);
        assertThat(result.get("action_type").asText()).isEqualTo("TOOL_RESULT");
        assertThat(result.get("action_name").asText()).isEqualTo("read");
        assertThat(result.get("action_status").asText()).isEqualTo("success");
        assertThat(result.get("duration_ms").asLong()).isEqualTo(125);
        assertThat(result.get("action_output").get("content").get(0).get("text").asText()).isEqualTo("hello");
        assertThat(result.get("metadata").get("jsonrpc_id").asText()).isEqualTo("7");
    }

    @Test
    void isErrorAndJsonRpcErrorsAreErrorsWithTheirMessage() {
        initialize();
        client("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"t1\"}}", 10);
        client("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{\"name\":\"t2\"}}", 11);
        server("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"error\":{\"code\":-32602,\"message\":\"unknown tool\"}}", 20);
        server("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"isError\":true,\"content\":[{\"type\":\"text\",\"text\":\"disk full\"}]}}", 30);
        assertThat(events).hasSize(4);
        ObjectNode b = events.get(2);
        assertThat(b.get("action_name").asText()).isEqualTo("t2");
        assertThat(b.get("action_status").asText()).isEqualTo("error");
        assertThat(b.get("error_message").asText()).isEqualTo("unknown tool");
        assertThat(b.get("action_output").get("error").get("code").asInt()).isEqualTo(-32602);
        ObjectNode a = events.get(3);
        assertThat(a.get("action_name").asText()).isEqualTo("t1");
        assertThat(a.get("action_status").asText()).isEqualTo("error");
        assertThat(a.get("error_message").asText()).isEqualTo("disk full");
        assertThat(a.get("duration_ms").asLong()).isEqualTo(20);
    }

    @Test
    void batchesAreReadElementByElementAndIdsMatchByValue() {
        initialize();
        client("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
                + "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"tools/call\",\"params\":{\"name\":\"y\"}}]", 10);
        server("[{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}},{\"jsonrpc\":\"2.0\",\"id\":1.0,\"result\":{}}]", 20);
        assertThat(events).extracting(e -> e.get("action_type").asText() + " " + e.get("action_name").asText())
                .containsExactly("TOOL_CALL x", "TOOL_CALL y", "TOOL_RESULT y", "TOOL_RESULT x");
    }

    @Test
    void requestsFromTheServerAndAnswersFromTheClientAreNotToolCalls() {
        initialize();
        server("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}", 10);
        client("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}", 11);
        assertThat(events).isEmpty();
    }

    @Test
    void callsLeftUnansweredOrCancelledGetAnErrorResult() {
        initialize();
        client("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}", 10);
        client("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slower\"}}", 10);
        client("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"user\"}}", 50);
        recorder.finish(stamp(90));
        assertThat(events).hasSize(4);
        assertThat(events).extracting(e -> e.get("metadata").get("proxy_seq").asLong()).containsExactly(4L, 5L, 6L, 7L);
        assertThat(events.get(2).get("error_message").asText()).isEqualTo("cancelled by the client: user");
        assertThat(events.get(2).get("duration_ms").asLong()).isEqualTo(40);
        assertThat(events.get(3).get("action_name").asText()).isEqualTo("slower");
        assertThat(events.get(3).get("action_status").asText()).isEqualTo("error");
        assertThat(events.get(3).get("error_message").asText()).startsWith("no answer");
    }

    @Test
    void eventsAreNumberedInTheProxysCaptureStreamAndTheExitEndsIt() {
        List<ObjectNode> out = new ArrayList<>();
        ToolCallRecorder r = new ToolCallRecorder(null, "npx", "s", "mcp-stream", out::add);
        r.end(stamp(0));
        assertThat(out).as("nothing recorded: no stream to end").isEmpty();
        r.message(Direction.CLIENT_TO_SERVER, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}"
                .getBytes(StandardCharsets.UTF_8), stamp(1));
        r.message(Direction.SERVER_TO_CLIENT, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}"
                .getBytes(StandardCharsets.UTF_8), stamp(2));
        r.finish(stamp(3));
        r.end(stamp(4));
        assertThat(out).extracting(e -> e.get("capture_seq").asLong()).containsExactly(1L, 2L, 3L);
        assertThat(out).allSatisfy(e -> assertThat(e.get("capture_id").asText()).isEqualTo("mcp-stream"));
        assertThat(out.get(2).get("action_type").asText()).isEqualTo("CAPTURE_END");
        assertThat(out.get(2).get("capture_last").asBoolean()).isTrue();
        assertThat(out.get(2).get("metadata").has("jsonrpc_id")).isFalse();
    }

    @Test
    void theAgentIdIsExplicitOrTheServersNameOrTheCommandsFileName() {
        List<ObjectNode> explicit = new ArrayList<>();
        ToolCallRecorder r = new ToolCallRecorder("my-agent", "npx", "s", explicit::add);
        r.message(Direction.CLIENT_TO_SERVER, "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}"
                .getBytes(StandardCharsets.UTF_8), stamp(0));
        assertThat(explicit.get(0).get("agent_id").asText()).isEqualTo("my-agent");

        client("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}", 0);
        initialize();
        client("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}", 5);
        // Fixed at the first event: a call before initialize (a protocol error) gets the command's name, for the whole run.
        assertThat(events).extracting(e -> e.get("agent_id").asText()).containsOnly("mcp:npx");
        assertThat(ToolCallRecorder.agentIdFor("a\u0007b" + "c".repeat(400))).hasSize(256).startsWith("mcp:abccc");
    }

    @Test
    void aResultTooLargeForOneEventIsSummarisedWithTheHashOfItsCanonicalForm() throws Exception {
        initialize();
        client("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"big\"}}", 10);
        String result = "{\"content\":[{\"type\":\"text\",\"text\":\"" + "y".repeat(1_100_000) + "\"}]}";
        server("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}", 20);
        JsonNode output = events.get(1).get("action_output");
        assertThat(output.get("omitted").asText()).contains("larger than one event");
        byte[] canonical = Rfc8785.canonicalize(StrictJson.parse(result.getBytes(StandardCharsets.UTF_8), 100));
        assertThat(output.get("canonical_bytes").asLong()).isEqualTo(canonical.length);
        assertThat(output.get("canonical_sha256").asText()).isEqualTo(EventContent.sha256(canonical));
        assertThat(events.get(1).get("action_status").asText()).isEqualTo("success");
        assertThat(Rfc8785.canonicalize(events.get(1)).length).isLessThan(EventContent.MAX_EVENT_BYTES);
    }

    @Test
    void argumentsTheEventRulesCannotHoldAsSentAreSummarisedNotChanged() {
        initialize();
        String line = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"n\","
                + "\"arguments\":{\"amount\":12345678901234567890}}}";
        client(line, 10);
        JsonNode input = events.get(0).get("action_input");
        assertThat(input.get("omitted").asText()).startsWith("the message could not be recorded faithfully");
        assertThat(input.get("message_sha256").asText())
                .isEqualTo(EventContent.sha256(line.getBytes(StandardCharsets.UTF_8)));
        assertThat(events.get(0).get("action_name").asText()).isEqualTo("n");
    }

    @Test
    void argumentsNestedTooDeeplyAreSummarised() {
        initialize();
        String deep = "[".repeat(70) + "]".repeat(70);
        client("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"d\",\"arguments\":{\"a\":"
                + deep + "}}}", 10);
        assertThat(events.get(0).get("action_input").get("omitted").asText()).startsWith("nested deeper");
    }

    @Test
    void linesThatAreNotJsonOrTooLongAreSkipped() {
        initialize();
        client("not json", 10);
        recorder.message(Direction.CLIENT_TO_SERVER, null, stamp(0));
        assertThat(events).isEmpty();
        assertThat(recorder.oversizedMessages()).isEqualTo(1);
    }

    @Test
    void callsOfOneBatchShareTheBatchsNumberInTheBatchsOrder() {
        initialize();
        client("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}]", 10);
        server("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}", 20);
        assertThat(events).extracting(e -> e.get("action_name").asText() + " " + e.get("metadata").get("proxy_seq"))
                .containsExactly("a 4", "b 4", "b 5");
    }

    @Test
    void anEventTheRulesWouldRefuseIsSummarisedInPlaceAndKeepsItsNumber() throws Exception {
        ObjectNode event = (ObjectNode) new ObjectMapper().readTree("{\"agent_id\":\"trailproof.erasures\","
                + "\"action_type\":\"TOOL_CALL\",\"action_input\":{\"k\":\"v\"},\"metadata\":{\"jsonrpc_id\":\"1\",\"proxy_seq\":9}}");
        ObjectNode stored = EventContent.storable(event);
        assertThat(stored.get("action_input").get("omitted").asText()).startsWith(EventContent.RULES_REFUSE)
                .contains("reserved");
        assertThat(stored.get("action_input").get("json_sha256").asText())
                .isEqualTo(EventContent.sha256("{\"k\":\"v\"}".getBytes(StandardCharsets.UTF_8)));
        assertThat(stored.get("metadata").get("proxy_seq").asLong()).isEqualTo(9);
        assertThat(EventContent.isRefusedSummary(stored)).isTrue();
        ObjectNode fine = event.deepCopy().put("agent_id", "mcp:ok");
        assertThat(EventContent.storable(fine)).isSameAs(fine);
        assertThat(EventContent.isRefusedSummary(fine)).isFalse();
    }
}
