package io.trailproof.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/** The answer of {@code POST /v1/decisions}, written member by member, is the bytes Jackson writes for the same tree. */
class DecisionAnswerTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Test
    void sameBytesAsTheTree() throws Exception {
        for (String text : List.of("plain", "quote \" backslash \\ slash / </script>", "controls \n\t\r\b\f \u0001 \u001f \u007f",
                "non-ASCII é € 日本 \uD83D\uDE00", "")) {
            ObjectNode out = NODES.objectNode();
            out.put("decision", "ask");
            out.put("policy", text);
            out.putNull("rule");
            out.put("reason", text);
            out.put("policy_event_id", "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00");
            out.put("args_sha256", "ab".repeat(32));
            // expires_at absent: written as null, as the tree's answer did
            JsonNode id = TextNode.valueOf("019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f01");
            byte[] written = DecisionAnswers.of(text, out, id, LongNode.valueOf(12_345_678_901L), TextNode.valueOf("cd".repeat(32)));

            ObjectNode o = NODES.objectNode();
            o.put("decision_id", text);
            for (String f : List.of("decision", "policy", "rule", "reason", "policy_event_id", "args_sha256", "expires_at")) {
                o.set(f, out.path(f).isMissingNode() ? NODES.nullNode() : out.get(f));
            }
            ObjectNode ref = o.putObject("event");
            ref.set("id", id);
            ref.put("log_index", 12_345_678_901L);
            ref.put("hash", "cd".repeat(32));
            assertThat(new String(written, UTF_8))
                    .isEqualTo(new String(MAPPER.writeValueAsBytes(o), UTF_8));
            assertThat(written).isEqualTo(MAPPER.writeValueAsBytes(o));
        }
    }
}
