package io.trailproof.core.gate;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.json.Rfc8785;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link GateEvent#read} (one pass over the bytes) gives what {@link GateEvent#of} gives for the
 * parsed tree, for every kind of event and for members of unexpected kinds; and {@code args_sha256}
 * hashed in pieces is the digest of the object's canonical form.
 */
class GateEventReadTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String HEAD = "\"agent_id\":\"a1\",\"hash\":\"" + "ab".repeat(32) + "\",\"id\":\"019a8b2c-1d2e-7f30-8a41-"
            + "5b6c7d8e9f00\",\"log_index\":7,\"prev_hash\":\"" + "0".repeat(64) + "\",\"recorded_at\":\"2026-01-02T03:04:05.123456Z\","
            + "\"schema_version\":\"1.0\",\"sequence\":3";

    private static String event(String rest) {
        return "{" + HEAD + (rest.isEmpty() ? "" : "," + rest) + "}";
    }

    @Test
    void readsEveryKindAsTheTreeDoes() throws Exception {
        List<String> events = List.of(
                event("\"action_input\":{\"amount\":120,\"to\":\"acct-42\"},\"action_name\":\"transfer\",\"action_output\":"
                        + "{\"args_sha256\":\"" + "cd".repeat(32) + "\",\"decision\":\"ask\",\"expires_at\":\"2026-01-02T03:09:05.123456Z\","
                        + "\"policy\":\"money\",\"policy_event_id\":null,\"reason\":\"over the limit \\u00e9\",\"rule\":\"limit\"},"
                        + "\"action_type\":\"DECISION\",\"labels\":{\"env\":\"prod\"},\"session_id\":\"s1\""),
                event("\"action_output\":{\"decision\":\"allow\",\"expires_at\":null,\"rule\":null,\"reason\":\"default\"},"
                        + "\"action_type\":\"DECISION\""),
                event("\"action_output\":{\"approved\":true,\"approver\":\"ops\",\"args_sha256\":\"x\",\"comment\":null,"
                        + "\"decision_id\":\"d1\",\"valid_until\":\"2026-01-02T04:04:05Z\"},\"action_type\":\"APPROVAL\""),
                event("\"action_output\":{\"approved\":false,\"approver\":\"ops\",\"decision_id\":\"d1\",\"valid_until\":null},"
                        + "\"action_type\":\"APPROVAL\""),
                event("\"action_output\":{\"check\":\"used\",\"decision_id\":\"d1\",\"event_id\":\"e1\"},\"action_type\":\"GATE_VIOLATION\""),
                event("\"action_input\":{\"amount\":120},\"action_name\":\"transfer\",\"action_type\":\"TOOL_CALL\",\"decision_id\":\"d1\""),
                event("\"action_type\":\"TOOL_CALL\",\"action_name\":\"transfer\""),
                event("\"action_type\":\"LLM_CALL\",\"decision_id\":\"d1\""),
                event(""),
                // members of kinds the service never writes: read as the tree reads them
                event("\"action_output\":{\"decision\":5,\"rule\":{\"a\":1},\"reason\":[1],\"args_sha256\":true},\"action_type\":\"DECISION\""),
                event("\"action_output\":\"text\",\"action_type\":\"DECISION\""),
                event("\"action_output\":{\"approved\":\"true\",\"decision_id\":\"d1\"},\"action_type\":\"APPROVAL\""),
                event("\"action_output\":{\"approved\":1,\"decision_id\":\"d1\"},\"action_type\":\"APPROVAL\""),
                event("\"action_output\":{\"approved\":null,\"decision_id\":\"d1\"},\"action_type\":\"APPROVAL\""),
                event("\"action_output\":{\"decision\":\"deny\"},\"action_output\":{\"decision\":\"allow\"},\"action_type\":\"DECISION\""),
                event("\"action_type\":7"),
                "{\"action_type\":\"DECISION\",\"sequence\":\"4\",\"id\":\"x\"}",
                "{\"action_type\":\"DECISION\",\"sequence\":1.5,\"recorded_at\":\"not a time\"}");
        for (String e : events) {
            byte[] bytes = e.getBytes(StandardCharsets.UTF_8);
            assertThat(GateEvent.read(bytes)).as(e).isEqualTo(GateEvent.of(MAPPER.readTree(bytes)));
        }
        GateEvent d = GateEvent.read(events.get(0).getBytes(StandardCharsets.UTF_8));
        assertThat(d.kind()).isEqualTo(GateEvent.Kind.DECISION);
        assertThat(d.rule()).isEqualTo("limit");
        assertThat(d.reason()).isEqualTo("over the limit é");
        assertThat(GateEvent.read(events.get(2).getBytes(StandardCharsets.UTF_8)).approved()).isTrue();
    }

    @Test
    void refusesBytesThatAreNotJson() {
        assertThat(GateEvent.read("[1]".getBytes(StandardCharsets.UTF_8))).isNull();
        assertThatThrownBy(() -> GateEvent.read("{\"id\":".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void digestsTheCanonicalFormOfNameAndInput() throws Exception {
        ObjectNode input = (ObjectNode) MAPPER.readTree("{\"to\":\"acct-42\",\"amount\":120,\"memo\":\"\\u20ac 1e2\",\"n\":[1.0,null]}");
        for (var name : List.of(JsonNodeFactory.instance.textNode("transfer"), NullNode.instance)) {
            for (var in : List.of(input, NullNode.instance)) {
                ObjectNode o = JsonNodeFactory.instance.objectNode();
                o.set("action_name", name);
                o.set("action_input", in);
                String expected = HexFormat.of().formatHex(EventHash.sha256(Rfc8785.canonicalize(o)));
                assertThat(ArgsDigest.of(name, in)).isEqualTo(expected);
            }
        }
        assertThat(ArgsDigest.of(null, null)).isEqualTo(ArgsDigest.of(NullNode.instance, NullNode.instance));
    }
}
