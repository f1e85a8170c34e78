package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.shipping.Notices;
import io.trailproof.testing.Await;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gated client-to-server direction with the service unreachable: in fail mode closed no call
 * reaches the server and each is answered with a tool error; every other message passes on byte for
 * byte; in fail mode open calls pass on, marked as unchecked.
 */
class GatedInputTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private record Run(String server, List<JsonNode> answers, List<ToolCallRecorder.GateMark> marks, String err) {
    }

    private static Run run(String input, boolean failOpen, int expected) throws Exception {
        ByteArrayOutputStream server = new ByteArrayOutputStream();
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Notices notices = new Notices(new PrintStream(err, true, StandardCharsets.UTF_8), McpProxy.NOTICE_PREFIX);
        DecisionClient decisions = new DecisionClient(URI.create("http://127.0.0.1:" + closedPort()), null,
                Duration.ofSeconds(5), JSON);
        ToolCallGate gate = new ToolCallGate(decisions, () -> "agent-1", "s-1", Clock.systemUTC(),
                new McpProxy.Gate(true, Duration.ofSeconds(1), failOpen), notices);
        List<ToolCallRecorder.GateMark> marks = new CopyOnWriteArrayList<>();
        ClientOutput answers = new ClientOutput(client);
        PipedOutputStream clientWrites = new PipedOutputStream();
        PipedInputStream fromClient = new PipedInputStream(clientWrites, 1 << 16);
        GatedInput in = new GatedInput(fromClient, server, answers,
                gate, (bytes, mark) -> {
                    if (mark != null) {
                        marks.add(mark);
                    }
                }, notices, 1 << 20);
        Thread t = Thread.ofPlatform().start(in);
        clientWrites.write(input.getBytes(StandardCharsets.UTF_8));
        clientWrites.flush();
        // The decisions run on threads of their own; the client keeps its side open until they are done.
        Await.untilTrue("every call answered or passed on", Duration.ofSeconds(60), () -> {
            long seen;
            synchronized (answers) {
                seen = client.toString(StandardCharsets.UTF_8).lines().count();
            }
            return seen + marks.size() >= expected;
        });
        clientWrites.close();
        t.join(60_000);
        List<JsonNode> parsed = new ArrayList<>();
        synchronized (answers) {
            for (String line : client.toString(StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty()) {
                    parsed.add(JSON.readTree(line));
                }
            }
        }
        return new Run(server.toString(StandardCharsets.UTF_8), parsed, marks, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void failClosedAnswersEveryCallAndPassesEverythingElseOnUnchanged() throws Exception {
        String other = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\r\n"
                + "not json at all\n";
        String call = "{\"jsonrpc\":\"2.0\",\"id\":\"c-7\",\"method\":\"tools/call\",\"params\":{\"name\":\"rm\",\"arguments\":{\"path\":\"/\"}}}\n";
        String duplicate = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\",\"arguments\":{\"path\":\"/tmp\",\"path\":\"/\"}}}\n";
        String batch = "[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\"}},"
                + "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}]\n";
        String last = "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}";
        Run r = run(other + call + duplicate + batch + last, false, 4);

        assertThat(r.server()).isEqualTo(other + last);
        assertThat(r.marks()).isEmpty();
        assertThat(r.answers()).hasSize(4);
        JsonNode refused = r.answers().stream().filter(a -> a.get("id").asText().equals("c-7")).findFirst().orElseThrow();
        assertThat(refused.get("result").get("isError").asBoolean()).isTrue();
        assertThat(refused.get("result").get("content").get(0).get("text").asText())
                .startsWith("trailproof gate unavailable, so rm was not called");
        JsonNode unreadable = r.answers().stream().filter(a -> a.get("id").asInt() == 8).findFirst().orElseThrow();
        assertThat(unreadable.get("result").get("content").get(0).get("text").asText()).contains("could not be read faithfully");
        assertThat(r.answers().stream().filter(a -> a.has("error")).map(a -> a.get("id").asInt()).toList())
                .containsExactlyInAnyOrder(9, 10);
        assertThat(r.err().lines().toList()).hasSize(1);
        assertThat(r.err()).contains("cannot reach the trailproof server").contains("refused");
    }

    @Test
    void failOpenPassesCallsOnMarkedUnchecked() throws Exception {
        String call = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ls\",\"arguments\":{\"path\":\"/\"}}}\n";
        Run r = run(call, true, 1);
        assertThat(r.server()).isEqualTo(call);
        assertThat(r.answers()).isEmpty();
        assertThat(r.marks()).hasSize(1);
        assertThat(r.marks().get(0).decisionId()).isNull();
        assertThat(r.marks().get(0).actionInput()).isEqualTo(JSON.readTree("{\"path\":\"/\"}"));
        assertThat(r.err()).contains("forwarded unchecked");
    }
}
