package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.shipping.EventContent;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * What a call asked, as the {@code LLM_CALL} event's {@code action_input}
 * (src/site/llm-gateway.md#what-is-recorded): {@code model}, the conversation ({@code messages}, or
 * {@code input} for Responses), {@code system} (Anthropic), {@code tools}, and {@code parameters}
 * (every other member of the request, such as {@code temperature} or {@code stream}). Pure: no I/O.
 *
 * <p>A request that cannot be read faithfully (a duplicate key, a number that changes when read, not
 * a JSON object) is recorded as a summary with the SHA-256 of its bytes; its model is still read, for
 * the event's name, when a lenient reading finds one.
 */
final class CallInput {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** For requests the strict reader refuses: enough to name the model, never to record content. */
    private static final ObjectMapper LENIENT = new ObjectMapper(StrictJson.unlimitedFactory())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /**
     * @param model the requested model, or null
     * @param stream whether the request asked for a streamed answer
     * @param input the {@code action_input}
     */
    record Parsed(String model, boolean stream, ObjectNode input) {
    }

    private CallInput() {
    }

    static Parsed read(ApiKind kind, byte[] body) {
        JsonNode root;
        try {
            root = StrictJson.parse(body, ResultReader.READ_DEPTH);
            if (root == null || !root.isObject()) {
                throw new JsonRejection(null, "the request is not a JSON object");
            }
        } catch (JsonRejection e) {
            String model = null;
            try {
                JsonNode lenient = LENIENT.readTree(body);
                model = lenient == null ? null : Assembled.text(lenient.get("model"));
            } catch (IOException notJson) {
                // no model to name
            }
            return new Parsed(model, false, EventContent.unreadable(body, e.getMessage()));
        }
        Set<String> named = kind.anthropic() ? Set.of("model", kind.conversation, "system", "tools")
                : Set.of("model", kind.conversation, "tools");
        ObjectNode input = NODES.objectNode();
        input.set("model", root.has("model") ? root.get("model") : NODES.nullNode());
        input.set(kind.conversation, root.has(kind.conversation) ? root.get(kind.conversation) : NODES.nullNode());
        if (kind.anthropic()) {
            input.set("system", root.has("system") ? root.get("system") : NODES.nullNode());
        }
        input.set("tools", root.has("tools") ? root.get("tools") : NODES.arrayNode());
        ObjectNode parameters = input.putObject("parameters");
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> member = it.next();
            if (!named.contains(member.getKey())) {
                parameters.set(member.getKey(), member.getValue());
            }
        }
        return new Parsed(Assembled.text(root.get("model")), root.path("stream").asBoolean(false),
                EventContent.asObject(input, "request"));
    }
}
