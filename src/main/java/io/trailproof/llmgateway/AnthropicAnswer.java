package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * An Anthropic Messages answer, whole (a {@code message} object) or streamed ({@code message_start},
 * {@code content_block_start}, {@code content_block_delta} with {@code text_delta} or
 * {@code input_json_delta}, {@code message_delta} with the stop reason and the output tokens,
 * {@code error}). {@code content} joins the text blocks; {@code tool_calls} are the
 * {@code tool_use} blocks ({@code id}, {@code name}, {@code input} as {@code arguments}; a streamed input
 * is read from its pieces, and kept as text when the pieces do not make JSON).
 */
final class AnthropicAnswer {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Assembled answer = new Assembled();
    private final Map<Integer, Assembled.ToolCall> blocks = new HashMap<>();

    /** A whole answer. */
    static Assembled whole(JsonNode message) {
        Assembled a = new Assembled();
        a.model = Assembled.text(message.get("model"));
        for (JsonNode block : message.path("content")) {
            String type = block.path("type").asText("");
            if ("text".equals(type)) {
                a.appendText(Assembled.text(block.get("text")));
            } else if ("tool_use".equals(type)) {
                Assembled.ToolCall c = a.newToolCall();
                c.id = Assembled.text(block.get("id"));
                c.name = Assembled.text(block.get("name"));
                c.arguments = block.has("input") ? block.get("input") : NODES.nullNode();
            }
        }
        a.finishReason = Assembled.text(message.get("stop_reason"));
        JsonNode usage = message.path("usage");
        a.usage(usage.get("input_tokens"), usage.get("output_tokens"));
        return a;
    }

    /** One streamed event's data. */
    void event(JsonNode data) {
        String type = data.path("type").asText("");
        switch (type) {
            case "message_start" -> {
                JsonNode message = data.path("message");
                answer.model = Assembled.text(message.get("model"));
                JsonNode usage = message.path("usage");
                answer.usage(usage.get("input_tokens"), usage.get("output_tokens"));
            }
            case "content_block_start" -> {
                JsonNode block = data.path("content_block");
                if ("tool_use".equals(block.path("type").asText())) {
                    Assembled.ToolCall c = answer.newToolCall();
                    c.id = Assembled.text(block.get("id"));
                    c.name = Assembled.text(block.get("name"));
                    blocks.put(data.path("index").asInt(-1), c);
                } else if ("text".equals(block.path("type").asText())) {
                    answer.appendText(Assembled.text(block.get("text")));
                }
            }
            case "content_block_delta" -> {
                JsonNode delta = data.path("delta");
                String kind = delta.path("type").asText("");
                if ("text_delta".equals(kind)) {
                    answer.appendText(Assembled.text(delta.get("text")));
                } else if ("input_json_delta".equals(kind)) {
                    Assembled.ToolCall c = blocks.get(data.path("index").asInt(-1));
                    String piece = Assembled.text(delta.get("partial_json"));
                    if (c != null && piece != null) {
                        c.argumentText.append(piece);
                    }
                }
            }
            case "message_delta" -> {
                String stop = Assembled.text(data.path("delta").get("stop_reason"));
                if (stop != null) {
                    answer.finishReason = stop;
                }
                JsonNode usage = data.path("usage");
                answer.usage(usage.get("input_tokens"), usage.get("output_tokens"));
            }
            case "error" -> answer.error = OpenAiChatAnswer.errorMessage(data.path("error"));
            default -> {
                // ping, content_block_stop, message_stop
            }
        }
    }

    Assembled finish() {
        for (Assembled.ToolCall c : answer.toolCalls) {
            String text = c.argumentText.toString();
            if (text.isEmpty()) {
                c.arguments = NODES.objectNode();
                continue;
            }
            try {
                c.arguments = StrictJson.parse(text.getBytes(StandardCharsets.UTF_8), ResultReader.READ_DEPTH);
            } catch (JsonRejection e) {
                c.arguments = null; // kept as the text that arrived
            }
        }
        return answer;
    }
}
