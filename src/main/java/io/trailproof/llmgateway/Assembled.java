package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/**
 * What one model answer said, gathered from a whole JSON answer or from its stream's events, in the
 * shape recorded as {@code action_output} (src/site/llm-gateway.md#what-is-recorded): {@code model},
 * {@code content} (the text, or null), {@code tool_calls} ({@code [{id, name, arguments}]}),
 * {@code finish_reason} and {@code usage} ({@code input_tokens}, {@code output_tokens}).
 */
final class Assembled {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** One tool call; {@code arguments} is text while a stream delivers it in pieces. */
    static final class ToolCall {
        String id;
        String name;
        final StringBuilder argumentText = new StringBuilder();
        JsonNode arguments;

        JsonNode arguments() {
            return arguments != null ? arguments : NODES.textNode(argumentText.toString());
        }
    }

    String model;
    StringBuilder content;
    final List<ToolCall> toolCalls = new ArrayList<>();
    String finishReason;
    JsonNode inputTokens;
    JsonNode outputTokens;
    /** An error the answer reported in its body or stream (an error event, a failed response). */
    String error;
    /** Other choices of an OpenAI chat answer with {@code n} above 1, in the same shape. */
    final List<ObjectNode> otherChoices = new ArrayList<>();

    void appendText(String text) {
        if (text == null) {
            return;
        }
        if (content == null) {
            content = new StringBuilder();
        }
        content.append(text);
    }

    ToolCall newToolCall() {
        ToolCall call = new ToolCall();
        toolCalls.add(call);
        return call;
    }

    /** Keeps a usage count when the answer gave one (a later count replaces an earlier one). */
    void usage(JsonNode input, JsonNode output) {
        if (input != null && input.isNumber()) {
            inputTokens = input;
        }
        if (output != null && output.isNumber()) {
            outputTokens = output;
        }
    }

    ObjectNode toJson() {
        ObjectNode out = NODES.objectNode();
        if (model != null) {
            out.put("model", model);
        } else {
            out.putNull("model");
        }
        writeChoice(out);
        if (!otherChoices.isEmpty()) {
            ArrayNode choices = out.putArray("choices");
            otherChoices.forEach(choices::add);
        }
        ObjectNode usage = out.putObject("usage");
        usage.set("input_tokens", inputTokens == null ? NODES.nullNode() : inputTokens);
        usage.set("output_tokens", outputTokens == null ? NODES.nullNode() : outputTokens);
        return out;
    }

    /** {@code content}, {@code tool_calls} and {@code finish_reason} of this answer into {@code out}. */
    void writeChoice(ObjectNode out) {
        if (content != null) {
            out.put("content", content.toString());
        } else {
            out.putNull("content");
        }
        ArrayNode calls = out.putArray("tool_calls");
        for (ToolCall call : toolCalls) {
            ObjectNode c = calls.addObject();
            c.put("id", call.id);
            c.put("name", call.name);
            c.set("arguments", call.arguments());
        }
        if (finishReason != null) {
            out.put("finish_reason", finishReason);
        } else {
            out.putNull("finish_reason");
        }
    }

    static String text(JsonNode node) {
        return node != null && node.isTextual() ? node.asText() : null;
    }
}
