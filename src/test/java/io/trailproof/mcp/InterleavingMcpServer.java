package io.trailproof.mcp;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A raw MCP server on stdio that answers {@code tools/call} requests on four threads after random short
 * pauses, so answers overtake each other and cross the client's next calls. It writes down its own
 * view of the session to {@code TIMELINE}: {@code in K} once it has read call K, {@code out K} just
 * before it starts writing the answer to K, in the order these happened. Arguments: {@code TIMELINE}.
 * It exits 0 once its standard input ended and every answer is written.
 */
public final class InterleavingMcpServer {

    private InterleavingMcpServer() {
    }

    public static void main(String[] args) throws Exception {
        Path timelineFile = Path.of(args[0]);
        ObjectMapper json = new ObjectMapper();
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        List<String> timeline = new ArrayList<>();
        Object lock = new Object();
        ExecutorService workers = Executors.newFixedThreadPool(4);
        Random random = new Random(11);
        BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(FileDescriptor.in),
                StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode m = json.readTree(line);
            String method = m.path("method").asText("");
            if (method.equals("initialize")) {
                write(out, lock, "{\"jsonrpc\":\"2.0\",\"id\":" + m.get("id") + ",\"result\":{\"protocolVersion\":\"2025-06-18\","
                        + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"interleave-test\",\"version\":\"1\"}}}\n",
                        null, timeline);
            } else if (method.equals("tools/call")) {
                long id = m.get("id").asLong();
                synchronized (lock) {
                    timeline.add("in " + id);
                }
                int pause = random.nextInt(4);
                workers.execute(() -> {
                    try {
                        Await.pace(Duration.ofMillis(pause), "a tool call that takes its time");
                        write(out, lock, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[{\"type\":\"text\","
                                + "\"text\":\"answer " + id + "\"}]}}\n", "out " + id, timeline);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            }
        }
        workers.shutdown();
        workers.awaitTermination(60, TimeUnit.SECONDS);
        synchronized (lock) {
            Files.write(timelineFile, timeline);
        }
        System.exit(0);
    }

    private static void write(OutputStream out, Object lock, String message, String entry, List<String> timeline)
            throws Exception {
        synchronized (lock) {
            if (entry != null) {
                timeline.add(entry); // before the first byte leaves
            }
            out.write(message.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }
}
