package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.shipping.EventContent;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Reads an upstream answer (its bytes as the client received them, content encoding undone) into the
 * {@code LLM_RESULT} event's content (src/site/llm-gateway.md#what-is-recorded). Pure: no I/O.
 *
 * <p>An answer with a status of 400 or more is an error: its message is the body's
 * {@code error.message} (both APIs put it there), its output the body's {@code error} object. An
 * answer that cannot be read faithfully (a duplicate key, a number that changes when read, not JSON)
 * is recorded as a summary with the SHA-256 of its bytes, never partly.
 */
final class ResultReader {

    /** Nesting allowed while reading; the content's own depth is checked when it is recorded. */
    static final int READ_DEPTH = 100_000;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String DONE = "[DONE]";

    /**
     * @param model the model the answer names, or null
     * @param errorMessage null for a successful answer, else what went wrong
     * @param output the {@code action_output}
     */
    record Result(String model, String errorMessage, ObjectNode output) {
    }

    private ResultReader() {
    }

    static Result read(ApiKind kind, int status, String contentType, byte[] body) {
        boolean stream = contentType != null
                && contentType.toLowerCase(Locale.ROOT).startsWith("text/event-stream");
        if (status >= 400) {
            return error(status, body);
        }
        try {
            Assembled a = stream ? stream(kind, body) : whole(kind, StrictJson.parse(body, READ_DEPTH));
            ObjectNode output = a.toJson();
            return new Result(a.model, a.error, EventContent.asObject(output, "answer"));
        } catch (JsonRejection e) {
            return new Result(null, null, EventContent.unreadable(body, e.getMessage()));
        }
    }

    private static Assembled whole(ApiKind kind, JsonNode body) throws JsonRejection {
        if (body == null || !body.isObject()) {
            throw new JsonRejection(null, "the answer is not a JSON object");
        }
        return switch (kind) {
            case OPENAI_CHAT -> new OpenAiChatAnswer().whole(body);
            case OPENAI_RESPONSES -> ResponsesAnswer.whole(body);
            case ANTHROPIC_MESSAGES -> AnthropicAnswer.whole(body);
            case OTHER -> throw new IllegalArgumentException("answers of other paths are not recorded");
        };
    }

    private static Assembled stream(ApiKind kind, byte[] body) throws JsonRejection {
        OpenAiChatAnswer chat = new OpenAiChatAnswer();
        ResponsesAnswer responses = new ResponsesAnswer();
        AnthropicAnswer anthropic = new AnthropicAnswer();
        for (SseEvents.Event event : SseEvents.parse(body)) {
            if (DONE.equals(event.data().strip())) {
                continue;
            }
            JsonNode data = StrictJson.parse(event.data().getBytes(StandardCharsets.UTF_8), READ_DEPTH);
            if (data == null || !data.isObject()) {
                continue;
            }
            switch (kind) {
                case OPENAI_CHAT -> chat.chunk(data);
                case OPENAI_RESPONSES -> responses.event(data);
                case ANTHROPIC_MESSAGES -> anthropic.event(data);
                case OTHER -> throw new IllegalArgumentException("answers of other paths are not recorded");
            }
        }
        return switch (kind) {
            case OPENAI_CHAT -> chat.finish();
            case OPENAI_RESPONSES -> responses.finish();
            default -> anthropic.finish();
        };
    }

    private static Result error(int status, byte[] body) {
        String fallback = "the upstream answered " + status;
        JsonNode parsed;
        try {
            parsed = StrictJson.parse(body, READ_DEPTH);
        } catch (JsonRejection e) {
            ObjectNode output = NODES.objectNode();
            output.put("error_text", EventContent.clip(new String(body, StandardCharsets.UTF_8),
                    EventLimits.ERROR_MESSAGE_MAX_LENGTH));
            return new Result(null, fallback, output);
        }
        JsonNode error = parsed == null ? null : parsed.get("error");
        if (error == null || !error.isObject()) {
            return new Result(null, fallback, parsed == null ? NODES.objectNode()
                    : EventContent.asObject(parsed, "error_body"));
        }
        String message = Assembled.text(error.get("message"));
        ObjectNode output = NODES.objectNode();
        output.set("error", EventContent.asObject(error, "error"));
        return new Result(null, message != null && !message.isEmpty() ? message : fallback, output);
    }
}
