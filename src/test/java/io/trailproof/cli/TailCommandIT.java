package io.trailproof.cli;

import io.trailproof.testing.Api;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code trailproof tail} through the packaged launcher: prints events as they arrive, and after the
 * server restarts (same data directory and port) resumes after the last event it printed, saying so.
 */
class TailCommandIT {

    @TempDir
    Path dir;

    private static Process tail(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ServerProcess.launcher().toString(), "tail"));
        cmd.addAll(List.of(args));
        return ServerProcess.onTestJdk(new ProcessBuilder(cmd)).start();
    }

    private static BlockingQueue<String> lines(InputStream in) {
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    q.add(l);
                }
            } catch (Exception ignored) {
                // the process ended
            }
        });
        return q;
    }

    private static void post(Api api, String agent, int n) throws Exception {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"agent_id\":\"").append(agent)
                    .append("\",\"action_type\":\"TOOL_CALL\",\"action_name\":\"step_").append(i).append("\"}");
        }
        assertThat(api.post("/v1/batch", b.append("]").toString()).status()).isEqualTo(201);
    }

    @Test
    void resumesAfterTheLastPrintedEventWhenTheServerRestarts() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port;
        InProcessServer first = InProcessServer.start(dir.resolve("data"), "server.port", Integer.toString(port));
        post(first.api(), "agent-1", 5);
        Process tail = tail("--server", url, "--from", "0", "--json", "--count", "12");
        BlockingQueue<String> out = lines(tail.getInputStream());
        BlockingQueue<String> err = lines(tail.getErrorStream());
        try {
            List<Long> seen = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String line = out.poll(30, TimeUnit.SECONDS);
                assertThat(line).as("event %d; stderr %s", i, err).isNotNull();
                seen.add(Api.JSON.readTree(line).get("log_index").asLong());
            }
            first.close();
            String said = err.poll(30, TimeUnit.SECONDS);
            assertThat(said).contains("resume at log index 5");
            try (InProcessServer second = InProcessServer.start(dir.resolve("data"), "server.port", Integer.toString(port))) {
                post(second.api(), "agent-2", 7);
                for (int i = 0; i < 7; i++) {
                    String line = out.poll(30, TimeUnit.SECONDS);
                    assertThat(line).as("event %d after the restart; stderr %s", i, err).isNotNull();
                    seen.add(Api.JSON.readTree(line).get("log_index").asLong());
                }
                assertThat(tail.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(tail.exitValue()).isZero();
            }
            assertThat(seen).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
            assertThat(String.join("\n", err)).contains("reconnected; resuming at log index 5");
        } finally {
            tail.destroyForcibly();
        }
    }

    @Test
    void printsOneLinePerEventLikeSearchAndRefusesABadQuery() throws Exception {
        try (InProcessServer server = InProcessServer.start(dir.resolve("data2"))) {
            post(server.api(), "agent-007", 3);
            String url = "http://127.0.0.1:" + server.server().port();
            Process tail = tail("action_name:step_1", "--server", url, "--from", "0", "--agent-id", "agent-007", "--count", "1");
            String out = new String(tail.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(tail.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(tail.exitValue()).isZero();
            assertThat(out.lines().toList()).hasSize(1);
            assertThat(out).startsWith("1 ").contains("agent-007").contains("TOOL_CALL step_1");

            Process bad = tail("a AND (", "--server", url);
            String err = new String(bad.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(bad.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(bad.exitValue()).isEqualTo(2);
            assertThat(err).contains("query syntax error");
        }
    }

    @Test
    void reconnectsWhenAConnectionGoesSilentWithoutClosing() throws Exception {
        try (ServerSocket silent = new ServerSocket(0)) {
            Process tail = tail("--server", "http://127.0.0.1:" + silent.getLocalPort(), "--from", "3", "--silence-limit", "1");
            BlockingQueue<String> err = lines(tail.getErrorStream());
            try {
                List<Socket> held = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    silent.setSoTimeout(30_000);
                    Socket s = silent.accept();
                    held.add(s);
                    BufferedReader r = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
                    String request = r.readLine();
                    assertThat(request).startsWith("GET /v1/stream?from=3 ");
                    while (!r.readLine().isEmpty()) {
                        // headers
                    }
                    s.getOutputStream().write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                }
                assertThat(err.poll(10, TimeUnit.SECONDS)).contains("reconnecting to resume at log index 3");
                for (Socket s : held) {
                    s.close();
                }
            } finally {
                tail.destroyForcibly();
            }
        }
    }
}
