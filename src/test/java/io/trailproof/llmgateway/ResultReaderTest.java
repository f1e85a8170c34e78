package io.trailproof.llmgateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.shipping.EventContent;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Known answers: each API's answers, whole and streamed, read into the recorded output. */
class ResultReaderTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ResultReader.Result read(ApiKind kind, int status, String type, String body) {
        return ResultReader.read(kind, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    @Test
    void aWholeAnswerAndItsStreamedFormAreRecordedAlike() throws Exception {
        ResultReader.Result whole = read(ApiKind.OPENAI_CHAT, 200, "application/json", FakeAnswers.chatPlain());
        assertThat(whole.errorMessage()).isNull();
        assertThat(whole.output()).isEqualTo(json("""
                {"model":"fake-plain-2026-01-01","content":"Hello there.","tool_calls":[],"finish_reason":"stop",
                "usage":{"input_tokens":12,"output_tokens":3}}"""));
        ResultReader.Result streamed = read(ApiKind.OPENAI_CHAT, 200, "text/event-stream; charset=utf-8",
                String.join("", FakeAnswers.chatTextStream()));
        assertThat(streamed.output()).isEqualTo(json("""
                {"model":"fake-text-2026-01-01","content":"Hello!","tool_calls":[],"finish_reason":"stop",
                "usage":{"input_tokens":null,"output_tokens":null}}"""));
    }

    @Test
    void chatChoicesBeyondTheFirstAreKeptApart() throws Exception {
        String body = """
                {"model":"m","choices":[{"index":0,"message":{"content":"a"},"finish_reason":"stop"},
                {"index":1,"message":{"content":"b","tool_calls":[{"id":"c1","type":"function",
                "function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
                "usage":{"prompt_tokens":1,"completion_tokens":2}}""";
        assertThat(read(ApiKind.OPENAI_CHAT, 200, "application/json", body).output()).isEqualTo(json("""
                {"model":"m","content":"a","tool_calls":[],"finish_reason":"stop",
                "choices":[{"index":1,"content":"b","tool_calls":[{"id":"c1","name":"f","arguments":"{}"}],
                "finish_reason":"tool_calls"}],"usage":{"input_tokens":1,"output_tokens":2}}"""));
    }

    @Test
    void streamsInCrlfFramingWithCommentsAreReadAsWithLf() throws Exception {
        String lf = String.join("", FakeAnswers.messagesToolStream());
        String crlf = ": keep-alive\r\n" + lf.replace("\n", "\r\n");
        ResultReader.Result a = read(ApiKind.ANTHROPIC_MESSAGES, 200, "text/event-stream", lf);
        ResultReader.Result b = read(ApiKind.ANTHROPIC_MESSAGES, 200, "text/event-stream", crlf);
        assertThat(b.output()).isEqualTo(a.output());
        assertThat(a.output().get("tool_calls")).isEqualTo(json(
                "[{\"id\":\"toolu_01\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Lima\"}}]"));
    }

    @Test
    void aResponsesStreamCutBeforeItsEndKeepsWhatItFinished() throws Exception {
        List<String> events = FakeAnswers.responsesToolStream();
        ResultReader.Result cut = read(ApiKind.OPENAI_RESPONSES, 200, "text/event-stream",
                String.join("", events.subList(0, 4)));
        assertThat(cut.output()).isEqualTo(json("""
                {"model":"fake-tools-2026-01-01","content":null,
                "tool_calls":[{"id":"call_xyz","name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}],
                "finish_reason":null,"usage":{"input_tokens":null,"output_tokens":null}}"""));
    }

    @Test
    void errorsInTheBodyOrTheStreamMakeAnErrorResult() throws Exception {
        ResultReader.Result e = read(ApiKind.ANTHROPIC_MESSAGES, 529, "application/json",
                "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
        assertThat(e.errorMessage()).isEqualTo("Overloaded");
        assertThat(e.output()).isEqualTo(json("{\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
        ResultReader.Result html = read(ApiKind.OPENAI_CHAT, 502, "text/html", "<h1>Bad gateway</h1>");
        assertThat(html.errorMessage()).isEqualTo("the upstream answered 502");
        assertThat(html.output().get("error_text").asText()).isEqualTo("<h1>Bad gateway</h1>");
        ResultReader.Result midStream = read(ApiKind.ANTHROPIC_MESSAGES, 200, "text/event-stream",
                FakeAnswers.messagesToolStream().get(0)
                        + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n");
        assertThat(midStream.errorMessage()).isEqualTo("Overloaded");
    }

    @Test
    void anAnswerThatCannotBeReadFaithfullyIsSummarisedWithItsHash() throws Exception {
        String duplicate = "{\"model\":\"m\",\"model\":\"n\",\"choices\":[]}";
        ResultReader.Result r = read(ApiKind.OPENAI_CHAT, 200, "application/json", duplicate);
        assertThat(r.output().get("omitted").asText()).startsWith("the message could not be recorded faithfully");
        assertThat(r.output().get("message_sha256").asText())
                .isEqualTo(EventContent.sha256(duplicate.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void requestsAreSplitIntoModelConversationToolsAndParameters() throws Exception {
        CallInput.Parsed p = CallInput.read(ApiKind.ANTHROPIC_MESSAGES, """
                {"model":"claude","system":[{"type":"text","text":"s"}],"messages":[],"max_tokens":5,"stream":true}"""
                .getBytes(StandardCharsets.UTF_8));
        assertThat(p.model()).isEqualTo("claude");
        assertThat(p.stream()).isTrue();
        assertThat(p.input()).isEqualTo(json("""
                {"model":"claude","messages":[],"system":[{"type":"text","text":"s"}],"tools":[],
                "parameters":{"max_tokens":5,"stream":true}}"""));
        CallInput.Parsed bad = CallInput.read(ApiKind.OPENAI_CHAT,
                "{\"model\":\"gpt\",\"n\":12345678901234567890}".getBytes(StandardCharsets.UTF_8));
        assertThat(bad.model()).isEqualTo("gpt");
        assertThat(bad.input().has("omitted")).isTrue();
    }

    @Test
    void onlyCodingsTheGatewayCanReadAreAskedForAndHopByHopHeadersStay() {
        assertThat(HopHeaders.acceptEncoding(List.of("gzip, deflate, br", "zstd;q=0.5"))).isEqualTo("gzip, deflate");
        assertThat(HopHeaders.acceptEncoding(List.of("br"))).isNull();
        assertThat(HopHeaders.connectionListed(List.of("keep-alive, X-Custom"))).containsExactly("keep-alive", "x-custom");
        assertThat(HopHeaders.forwardRequestHeader("x-custom", HopHeaders.connectionListed(List.of("X-Custom")))).isFalse();
        assertThat(HopHeaders.forwardRequestHeader("authorization", Set.of())).isTrue();
        assertThat(HopHeaders.forwardRequestHeader("x-trailproof-agent", Set.of())).isFalse();
        assertThat(HopHeaders.forwardResponseHeader("transfer-encoding", Set.of())).isFalse();
        assertThat(ApiKind.of("POST", "/openai/v1/chat/completions")).isEqualTo(ApiKind.OPENAI_CHAT);
        assertThat(ApiKind.of("GET", "/v1/chat/completions")).isEqualTo(ApiKind.OTHER);
        assertThat(ApiKind.of("POST", "/v1/messages/count_tokens")).isEqualTo(ApiKind.OTHER);
    }
}
