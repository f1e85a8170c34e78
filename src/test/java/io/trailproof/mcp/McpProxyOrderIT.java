package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.RunOrder;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.LongStream;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proxy's recorded order under load: a raw client that pipelines its calls and
 * {@link InterleavingMcpServer} answering out of order, through {@code trailproof mcp-proxy} against a
 * real trailproof server (helpers shared with {@link McpProxyIT}).
 */
@Order(RunOrder.LONG)
class McpProxyOrderIT {

    @TempDir
    Path tmp;

    /**
     * Both directions in flight at once, on a busy machine: the client pipelines calls (and now and
     * then waits for every answer first), the server answers on four threads out of order. The
     * recorded order (log order) is the order of {@code proxy_seq}, each direction's events come in the
     * order its messages passed (by content), and every message sent after the sender read another is
     * recorded after it: the client's calls after the answers it had read, the server's answers after
     * the calls it had read. Timestamps never go back along the log.
     */
    @Test
    void underLoadWithBothDirectionsInFlightTheRecordedOrderIsTheForwardedOrder() throws Exception {
        int calls = 250;
        Path serverTimeline = tmp.resolve("server-timeline");
        try (InProcessServer trail = InProcessServer.start(tmp.resolve("data"))) {
            List<String> child = McpProxyIT.helperJava("-Xmx64m");
            child.addAll(List.of(InterleavingMcpServer.class.getName(), serverTimeline.toString()));
            ProcessBuilder pb = new ProcessBuilder(McpProxyIT.javaProxy(trail.api().base(), child));
            pb.environment().put("TRAILPROOF_SPOOL_DIR", tmp.resolve("spool").toString());
            pb.redirectError(tmp.resolve("interleave.err").toFile());
            Process p = pb.start();
            List<String> clientTimeline = new ArrayList<>();
            List<Long> received = new CopyOnWriteArrayList<>();
            Thread reader = new Thread(() -> {
                try {
                    String line;
                    while (!(line = McpProxyIT.readLine(p.getInputStream())).isEmpty()) {
                        long id = McpProxyIT.JSON.readTree(line).get("id").asLong();
                        synchronized (clientTimeline) {
                            clientTimeline.add("recv " + id); // once the whole answer was read
                        }
                        received.add(id);
                    }
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            reader.start();
            OutputStream in = p.getOutputStream();
            in.write(("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                    + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            McpProxyIT.await(() -> received.size() == 1, "the answer to initialize");
            // Load beside the session: two threads spinning on the two shared cores.
            List<Thread> load = new ArrayList<>();
            AtomicBoolean loaded = new AtomicBoolean(true);
            for (int t = 0; t < 2; t++) {
                Thread spinner = new Thread(() -> {
                    long x = 0;
                    while (loaded.get()) {
                        x += System.nanoTime() % 7;
                    }
                    assertThat(x).isNotNegative();
                });
                spinner.setDaemon(true);
                spinner.start();
                load.add(spinner);
            }
            Random random = new Random(5);
            try {
                for (int id = 1; id <= calls; id++) {
                    if (random.nextInt(10) == 0) {
                        int answered = id; // initialize's answer and every call's so far
                        McpProxyIT.await(() -> received.size() == answered, "every answer so far");
                    }
                    synchronized (clientTimeline) {
                        clientTimeline.add("send " + id); // before the first byte leaves
                    }
                    in.write(("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
                            + "\"arguments\":{\"n\":" + id + "}}}\n").getBytes(StandardCharsets.UTF_8));
                    in.flush();
                }
                McpProxyIT.await(() -> received.size() == calls + 1, "every answer");
            } finally {
                loaded.set(false);
            }
            in.close();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            reader.join(30_000);
            assertThat(p.exitValue()).as(Files.readString(tmp.resolve("interleave.err"))).isZero();

            JsonNode events = McpProxyIT.awaitEvents(trail.api(), "mcp:interleave-test", 2 * calls);
            Map<String, Long> seqOf = new HashMap<>();
            List<Long> callOrder = new ArrayList<>();
            List<Long> resultOrder = new ArrayList<>();
            long lastSeq = 0;
            Instant lastTime = Instant.EPOCH;
            for (JsonNode e : events) {
                long seq = e.get("metadata").get("proxy_seq").asLong();
                assertThat(seq).as("proxy_seq along the log").isGreaterThan(lastSeq);
                lastSeq = seq;
                Instant at = Instant.parse(e.get("timestamp").asText());
                assertThat(at).as("timestamps along the log").isAfterOrEqualTo(lastTime);
                lastTime = at;
                long id = e.get("metadata").get("jsonrpc_id").asLong();
                boolean call = e.get("action_type").asText().equals("TOOL_CALL");
                (call ? callOrder : resultOrder).add(id);
                seqOf.put((call ? "call " : "result ") + id, seq);
            }
            List<Long> recvOrder = received.subList(1, received.size());
            assertThat(callOrder).as("calls in the order the client sent them")
                    .isEqualTo(LongStream.rangeClosed(1, calls).boxed().toList());
            assertThat(resultOrder).as("answers in the order the client read them").isEqualTo(recvOrder);
            List<String> server = Files.readAllLines(serverTimeline);
            assertThat(server.stream().filter(l -> l.startsWith("out ")).map(l -> Long.parseLong(l.substring(4))).toList())
                    .as("answers in the order the server wrote them").isEqualTo(recvOrder);

            // Causality: what a side sent after reading a message is recorded after that message.
            long latestRead = 0;
            int checked = 0;
            int inFlight = 0;
            int sentWithAnswersInFlight = 0;
            for (String entry : clientTimeline) {
                long id = Long.parseLong(entry.substring(5));
                if (entry.startsWith("recv ") && id > 0) {
                    latestRead = Math.max(latestRead, seqOf.get("result " + id));
                    inFlight--;
                } else if (entry.startsWith("send ")) {
                    sentWithAnswersInFlight += inFlight > 0 ? 1 : 0;
                    inFlight++;
                    assertThat(seqOf.get("call " + id)).as("call %d after the answers the client had read", id)
                            .isGreaterThan(latestRead);
                    checked += latestRead > 0 ? 1 : 0;
                }
            }
            latestRead = 0;
            for (String entry : server) {
                long id = Long.parseLong(entry.substring(entry.indexOf(' ') + 1));
                if (entry.startsWith("in ")) {
                    latestRead = Math.max(latestRead, seqOf.get("call " + id));
                } else {
                    assertThat(seqOf.get("result " + id)).as("answer %d after the calls the server had read", id)
                            .isGreaterThan(latestRead);
                }
            }
            assertThat(checked).as("calls sent after some answer was read").isGreaterThan(calls / 2);
            assertThat(sentWithAnswersInFlight).as("calls sent while answers were on their way back").isGreaterThan(calls / 4);
        }
    }
}
