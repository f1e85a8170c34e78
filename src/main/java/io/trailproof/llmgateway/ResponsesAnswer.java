package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * An OpenAI Responses answer, whole (a {@code response} object) or streamed (typed events). A stream
 * ends with {@code response.completed}, {@code response.incomplete} or {@code response.failed}, which
 * carry the whole response; a stream cut before that is assembled from the items it finished
 * ({@code response.output_item.done}) and the text deltas it sent.
 *
 * <p>{@code content} joins the {@code output_text} parts of the message items; {@code tool_calls} are
 * the {@code function_call} and {@code custom_tool_call} items ({@code call_id}, {@code name},
 * {@code arguments} or {@code input}); {@code finish_reason} is the reason an incomplete response
 * gives, else its {@code status}.
 */
final class ResponsesAnswer {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonNode terminal;
    private String model;
    private final List<JsonNode> doneItems = new ArrayList<>();
    private final StringBuilder deltas = new StringBuilder();
    private String error;

    /** A whole answer. */
    static Assembled whole(JsonNode response) {
        Assembled a = new Assembled();
        a.model = Assembled.text(response.get("model"));
        items(a, response.path("output"));
        finishReason(a, response);
        JsonNode usage = response.path("usage");
        a.usage(usage.get("input_tokens"), usage.get("output_tokens"));
        JsonNode failure = response.get("error");
        if (failure != null && failure.isObject()) {
            a.error = OpenAiChatAnswer.errorMessage(failure);
        }
        return a;
    }

    /** One streamed event's data. */
    void event(JsonNode data) {
        String type = data.path("type").asText("");
        switch (type) {
            case "response.created", "response.in_progress" -> {
                if (model == null) {
                    model = Assembled.text(data.path("response").get("model"));
                }
            }
            case "response.output_text.delta" -> {
                String delta = Assembled.text(data.get("delta"));
                if (delta != null) {
                    deltas.append(delta);
                }
            }
            case "response.output_item.done" -> {
                if (data.has("item")) {
                    doneItems.add(data.get("item"));
                }
            }
            case "response.completed", "response.incomplete", "response.failed" -> terminal = data.get("response");
            case "error" -> error = OpenAiChatAnswer.errorMessage(data.has("error") ? data.get("error") : data);
            default -> {
                // other events repeat what the ones above carry
            }
        }
    }

    Assembled finish() {
        Assembled a;
        if (terminal != null && terminal.isObject()) {
            a = whole(terminal);
        } else {
            a = new Assembled();
            a.model = model;
            items(a, NODES.arrayNode().addAll(doneItems));
            if (a.content == null && !deltas.isEmpty()) {
                a.appendText(deltas.toString());
            }
        }
        if (error != null) {
            a.error = error;
        }
        return a;
    }

    private static void items(Assembled a, JsonNode output) {
        for (JsonNode item : output) {
            String type = item.path("type").asText("");
            switch (type) {
                case "message" -> {
                    for (JsonNode part : item.path("content")) {
                        String kind = part.path("type").asText("");
                        if ("output_text".equals(kind)) {
                            a.appendText(Assembled.text(part.get("text")));
                        } else if ("refusal".equals(kind)) {
                            a.appendText(Assembled.text(part.get("refusal")));
                        }
                    }
                }
                case "function_call", "custom_tool_call" -> {
                    Assembled.ToolCall c = a.newToolCall();
                    c.id = Assembled.text(item.get("call_id"));
                    c.name = Assembled.text(item.get("name"));
                    JsonNode args = item.has("arguments") ? item.get("arguments") : item.get("input");
                    c.arguments = args == null ? NODES.nullNode() : args;
                }
                default -> {
                    // reasoning and built-in tool items are not tool calls of the agent
                }
            }
        }
    }

    private static void finishReason(Assembled a, JsonNode response) {
        String reason = Assembled.text(response.path("incomplete_details").get("reason"));
        a.finishReason = reason != null ? reason : Assembled.text(response.get("status"));
    }
}
