package io.trailproof.llmgateway;

import java.util.List;

/** The answers {@link FakeModelApi} gives, in each API's documented wire format. */
final class FakeAnswers {

    private FakeAnswers() {
    }

    static String chatPlain() {
        return """
                {"id":"chatcmpl-fake1","object":"chat.completion","created":1764633600,"model":"fake-plain-2026-01-01",\
                "choices":[{"index":0,"message":{"role":"assistant","content":"Hello there.","refusal":null},\
                "logprobs":null,"finish_reason":"stop"}],\
                "usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}""";
    }

    private static String data(String json) {
        return "data: " + json + "\n\n";
    }

    static List<String> chatToolStream() {
        String head = "{\"id\":\"chatcmpl-fake2\",\"object\":\"chat.completion.chunk\",\"created\":1764633600,"
                + "\"model\":\"fake-tools-2026-01-01\",";
        return List.of(
                data(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,"
                        + "\"tool_calls\":[{\"index\":0,\"id\":\"call_abc\",\"type\":\"function\",\"function\":"
                        + "{\"name\":\"get_weather\",\"arguments\":\"\"}}]},\"finish_reason\":null}],\"usage\":null}"),
                data(head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                        + "{\"arguments\":\"{\\\"ci\"}}]},\"finish_reason\":null}],\"usage\":null}"),
                data(head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                        + "{\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}}]},\"finish_reason\":null}],\"usage\":null}"),
                data(head + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}],\"usage\":null}"),
                data(head + "\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":9,\"total_tokens\":49}}")
                        + "data: [DONE]\n\n");
    }

    /** Three pieces of text: "Hel", "lo", "!", then the end. */
    static List<String> chatTextStream() {
        String head = "{\"id\":\"chatcmpl-fake3\",\"object\":\"chat.completion.chunk\",\"created\":1764633600,"
                + "\"model\":\"fake-text-2026-01-01\",";
        return List.of(
                data(head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},"
                        + "\"finish_reason\":null}]}"),
                data(head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}"),
                data(head + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"!\"},\"finish_reason\":\"stop\"}]}")
                        + "data: [DONE]\n\n");
    }

    static String responsesPlain() {
        return """
                {"id":"resp_fake1","object":"response","created_at":1764633600,"status":"completed",\
                "model":"fake-plain-2026-01-01","output":[{"type":"message","id":"msg_1","status":"completed",\
                "role":"assistant","content":[{"type":"output_text","text":"Hello from Responses.","annotations":[]}]}],\
                "usage":{"input_tokens":20,"output_tokens":5,"total_tokens":25},"incomplete_details":null,"error":null}""";
    }

    private static String event(String type, String json) {
        return "event: " + type + "\ndata: " + json + "\n\n";
    }

    static List<String> responsesToolStream() {
        String created = "{\"id\":\"resp_fake2\",\"object\":\"response\",\"created_at\":1764633600,\"status\":\"in_progress\","
                + "\"model\":\"fake-tools-2026-01-01\",\"output\":[],\"usage\":null}";
        String item = "{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_xyz\",\"name\":\"get_weather\","
                + "\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\",\"status\":\"completed\"}";
        String completed = "{\"id\":\"resp_fake2\",\"object\":\"response\",\"created_at\":1764633600,\"status\":\"completed\","
                + "\"model\":\"fake-tools-2026-01-01\",\"output\":[" + item + "],"
                + "\"usage\":{\"input_tokens\":33,\"output_tokens\":11,\"total_tokens\":44},\"incomplete_details\":null,"
                + "\"error\":null}";
        return List.of(
                event("response.created", "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":" + created + "}"),
                event("response.output_item.added", "{\"type\":\"response.output_item.added\",\"sequence_number\":1,"
                        + "\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\",\"call_id\":\"call_xyz\","
                        + "\"name\":\"get_weather\",\"arguments\":\"\",\"status\":\"in_progress\"}}"),
                event("response.function_call_arguments.delta", "{\"type\":\"response.function_call_arguments.delta\","
                        + "\"sequence_number\":2,\"item_id\":\"fc_1\",\"output_index\":0,\"delta\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}"),
                event("response.output_item.done", "{\"type\":\"response.output_item.done\",\"sequence_number\":3,"
                        + "\"output_index\":0,\"item\":" + item + "}"),
                event("response.completed", "{\"type\":\"response.completed\",\"sequence_number\":4,\"response\":"
                        + completed + "}"));
    }

    static String messagesPlain() {
        return """
                {"id":"msg_fake1","type":"message","role":"assistant","model":"fake-plain-2026-01-01",\
                "content":[{"type":"text","text":"Hello from Claude."}],"stop_reason":"end_turn","stop_sequence":null,\
                "usage":{"input_tokens":25,"output_tokens":6}}""";
    }

    static List<String> messagesToolStream() {
        return List.of(
                event("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_fake2\",\"type\":\"message\","
                        + "\"role\":\"assistant\",\"model\":\"fake-tools-2026-01-01\",\"content\":[],\"stop_reason\":null,"
                        + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":50,\"output_tokens\":1}}}"),
                event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}"),
                event("ping", "{\"type\":\"ping\"}"),
                event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}"),
                event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,"
                        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"check.\"}}"),
                event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}"),
                event("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":"
                        + "{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"get_weather\",\"input\":{}}}"),
                event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \"}}"),
                event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,"
                        + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Lima\\\"}\"}}"),
                event("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}"),
                event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
                        + "\"stop_sequence\":null},\"usage\":{\"output_tokens\":21}}"),
                event("message_stop", "{\"type\":\"message_stop\"}"));
    }
}
