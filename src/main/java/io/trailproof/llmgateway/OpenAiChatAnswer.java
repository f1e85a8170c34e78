package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Map;
import java.util.TreeMap;

/**
 * An OpenAI chat completion, whole ({@code choices[].message}) or streamed ({@code chat.completion.chunk}
 * events with {@code choices[].delta}, tool calls in pieces keyed by their {@code index}, usage in a
 * last chunk when {@code stream_options.include_usage} was asked). Choice 0 is the answer; with
 * {@code n} above 1 the others are kept under {@code choices}.
 */
final class OpenAiChatAnswer {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Assembled answer = new Assembled();
    private final Map<Integer, Assembled> choices = new TreeMap<>();
    private final Map<Integer, Map<Integer, Assembled.ToolCall>> streamedCalls = new TreeMap<>();

    /** A whole answer. */
    Assembled whole(JsonNode body) {
        answer.model = Assembled.text(body.get("model"));
        for (JsonNode choice : body.path("choices")) {
            Assembled a = choice(choice.path("index").asInt(0));
            JsonNode message = choice.path("message");
            a.appendText(Assembled.text(message.get("content")));
            if (a.content == null) {
                a.appendText(Assembled.text(message.get("refusal")));
            }
            for (JsonNode call : message.path("tool_calls")) {
                Assembled.ToolCall c = a.newToolCall();
                c.id = Assembled.text(call.get("id"));
                c.name = Assembled.text(call.path("function").get("name"));
                JsonNode arguments = call.path("function").get("arguments");
                c.arguments = arguments == null ? NODES.nullNode() : arguments;
            }
            a.finishReason = Assembled.text(choice.get("finish_reason"));
        }
        usage(body.get("usage"));
        return finish();
    }

    /** One streamed chunk. */
    void chunk(JsonNode chunk) {
        if (chunk.has("error")) {
            answer.error = errorMessage(chunk.get("error"));
            return;
        }
        if (answer.model == null) {
            answer.model = Assembled.text(chunk.get("model"));
        }
        for (JsonNode choice : chunk.path("choices")) {
            int index = choice.path("index").asInt(0);
            Assembled a = choice(index);
            JsonNode delta = choice.path("delta");
            a.appendText(Assembled.text(delta.get("content")));
            a.appendText(Assembled.text(delta.get("refusal")));
            for (JsonNode piece : delta.path("tool_calls")) {
                Map<Integer, Assembled.ToolCall> calls = streamedCalls.computeIfAbsent(index, k -> new TreeMap<>());
                Assembled.ToolCall c = calls.computeIfAbsent(piece.path("index").asInt(calls.size()), k -> a.newToolCall());
                if (piece.has("id") && c.id == null) {
                    c.id = Assembled.text(piece.get("id"));
                }
                JsonNode function = piece.path("function");
                if (function.has("name") && c.name == null) {
                    c.name = Assembled.text(function.get("name"));
                }
                String args = Assembled.text(function.get("arguments"));
                if (args != null) {
                    c.argumentText.append(args);
                }
            }
            String finish = Assembled.text(choice.get("finish_reason"));
            if (finish != null) {
                a.finishReason = finish;
            }
        }
        usage(chunk.get("usage"));
    }

    Assembled finish() {
        for (Map.Entry<Integer, Assembled> e : choices.entrySet()) {
            if (e.getKey() != 0) {
                ObjectNode other = NODES.objectNode();
                other.put("index", e.getKey());
                e.getValue().writeChoice(other);
                answer.otherChoices.add(other);
            }
        }
        return answer;
    }

    private Assembled choice(int index) {
        if (index == 0) {
            return answer;
        }
        return choices.computeIfAbsent(index, k -> new Assembled());
    }

    private void usage(JsonNode usage) {
        if (usage != null && usage.isObject()) {
            answer.usage(usage.get("prompt_tokens"), usage.get("completion_tokens"));
        }
    }

    static String errorMessage(JsonNode error) {
        String message = Assembled.text(error.get("message"));
        return message != null ? message : error.toString();
    }
}
