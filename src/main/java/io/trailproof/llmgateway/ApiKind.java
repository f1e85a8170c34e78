package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The model APIs whose calls the gateway records (src/site/llm-gateway.md#what-is-recorded), recognised by
 * the request path's last segments so that an upstream mounted under a prefix ({@code /openai/v1/...})
 * is recognised too. Each API has its own error shape, which the gateway's own errors (an unreachable
 * upstream, a bad header) use so that the caller's SDK reads them as it reads the API's.
 */
enum ApiKind {

    OPENAI_CHAT("openai.chat.completions", "/chat/completions", "messages"),
    OPENAI_RESPONSES("openai.responses", "/responses", "input"),
    ANTHROPIC_MESSAGES("anthropic.messages", "/messages", "messages"),
    /** Any other path: passed through, not recorded. */
    OTHER("other", null, null);

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** The name recorded in {@code metadata.api}. */
    final String label;
    private final String suffix;
    /** The request member holding the conversation: {@code messages} or {@code input}. */
    final String conversation;

    ApiKind(String label, String suffix, String conversation) {
        this.label = label;
        this.suffix = suffix;
        this.conversation = conversation;
    }

    /** The API of a request: a POST to one of the recorded paths, else {@link #OTHER}. */
    static ApiKind of(String method, String path) {
        if (!"POST".equalsIgnoreCase(method)) {
            return OTHER;
        }
        String p = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (!p.contains("/v1/")) {
            return OTHER;
        }
        for (ApiKind kind : values()) {
            if (kind.suffix != null && p.endsWith("/v1" + kind.suffix)) {
                return kind;
            }
        }
        return OTHER;
    }

    boolean anthropic() {
        return this == ANTHROPIC_MESSAGES;
    }

    /**
     * An error body in the caller's API's shape: Anthropic's {@code {"type": "error", "error": {"type",
     * "message"}}}, otherwise OpenAI's {@code {"error": {"message", "type", "param", "code"}}}.
     */
    static ObjectNode errorBody(boolean anthropic, String type, String message) {
        ObjectNode body = NODES.objectNode();
        if (anthropic) {
            body.put("type", "error");
            ObjectNode error = body.putObject("error");
            error.put("type", type);
            error.put("message", message);
        } else {
            ObjectNode error = body.putObject("error");
            error.put("message", message);
            error.put("type", type);
            error.putNull("param");
            error.put("code", type);
        }
        return body;
    }
}
