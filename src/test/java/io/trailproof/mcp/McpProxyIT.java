package io.trailproof.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.trailproof.shipping.EventContent;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;
import io.trailproof.testing.Api;
import io.trailproof.testing.Await;
import io.trailproof.testing.InProcessServer;
import io.trailproof.testing.LaunchedJvm;
import io.trailproof.testing.RunOrder;
import io.trailproof.testing.ServerProcess;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import static org.assertj.core.api.Assertions.assertThat;



/**
 * The proxy end to end: the official Java MCP SDK's client drives a real MCP server (the SDK's server,
 * {@link TestMcpServer}) through {@code trailproof mcp-proxy}, started as a separate process, against a
 * real trailproof server on a free port.
 */
@Order(RunOrder.LONGEST)
class McpProxyIT {

    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");
    private static final String CLASS_PATH = System.getProperty("java.class.path");
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    private List<String> server(String name, int exitCode, Path record) {
        List<String> cmd = helperJava("-Xmx256m");
        cmd.addAll(List.of(TestMcpServer.class.getName(), name, Integer.toString(exitCode)));
        if (record != null) {
            cmd.add(record.toString());
        }
        return cmd;
    }

    /** {@code java}, the helper options, {@code heap} and the test class path, to which the caller adds a main class. */
    static List<String> helperJava(String heap) {
        List<String> cmd = new ArrayList<>(List.of(JAVA.toString()));
        cmd.addAll(LaunchedJvm.HELPER);
        cmd.addAll(List.of(heap, "-cp", CLASS_PATH));
        return cmd;
    }

    /** The proxy through the packaged launcher, as users run it. */
    private static List<String> launcherProxy(String url, List<String> child) {
        List<String> cmd = new ArrayList<>(List.of(ServerProcess.launcher().toString(), "mcp-proxy", "--server", url, "--"));
        cmd.addAll(child);
        return cmd;
    }

    /** The proxy's main class on the test class path (a faster start). */
    static List<String> javaProxy(String url, List<String> child) {
        List<String> cmd = helperJava("-Xmx256m");
        cmd.addAll(List.of("io.trailproof.cli.Main", "mcp-proxy", "--server", url, "--"));
        cmd.addAll(child);
        return cmd;
    }

    private McpSyncClient client(List<String> command, List<String> stderr) {
        ServerParameters params = ServerParameters.builder(command.get(0)).args(command.subList(1, command.size()))
                .env(Map.of("TRAILPROOF_SPOOL_DIR", tmp.resolve("spool").toString(),
                        "TRAILPROOF_JAVA_OPTS", LaunchedJvm.withOptions("-Xmx256m"), "JAVA_HOME", System.getProperty("java.home")))
                .build();
        StdioClientTransport transport = new StdioClientTransport(params, new JacksonMcpJsonMapper(new ObjectMapper()));
        transport.setStdErrorHandler(stderr::add);
        McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(120))
                .initializationTimeout(Duration.ofSeconds(120)).build();
        client.initialize();
        return client;
    }

    private static String text(CallToolResult r) {
        return ((TextContent) r.content().get(0)).text();
    }

    /** The agent's recorded messages, without the proxy's end of its capture stream ({@code CAPTURE_END}). */
    static JsonNode events(Api api, String agent) throws Exception {
        ArrayNode out = Api.JSON.createArrayNode();
        for (JsonNode e : all(api, agent)) {
            if (!e.path("action_type").asText().equals("CAPTURE_END")) {
                out.add(e);
            }
        }
        return out;
    }

    private static JsonNode all(Api api, String agent) throws Exception {
        return api.get("/v1/events?order=asc&limit=1000&agent_id=" + agent).json();
    }

    static JsonNode awaitEvents(Api api, String agent, int count) throws Exception {
        try {
            Await.untilTrue(count + " events of " + agent, Duration.ofSeconds(90), () -> events(api, agent).size() >= count);
        } catch (AssertionError timedOut) {
            // the assertion below says what arrived
        }
        JsonNode events = events(api, agent);
        assertThat(events.size()).as("events of %s: %s", agent, events).isEqualTo(count);
        return events;
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(90), condition);
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * The processes this JVM started whose command line has the argument {@code argument}, read from
     * /proc ({@code ProcessHandle.Info} gives no arguments for a command line as long as a class path).
     */
    private static List<ProcessHandle> children(String argument) {
        return ProcessHandle.current().children().filter(h -> {
            try {
                String cmdline = Files.readString(Path.of("/proc", Long.toString(h.pid()), "cmdline"));
                return Arrays.asList(cmdline.split("\0")).contains(argument);
            } catch (IOException gone) {
                return false;
            }
        }).toList();
    }

    private static long spooled(Path spool) throws IOException {
        if (!Files.isDirectory(spool)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(spool)) { // the service's own subdirectory, below the root
            return files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
        }
    }

    @Test
    void aRealClientThroughTheLauncherGetsEveryByteUnchangedAndEachCallIsRecordedAsAPair() throws Exception {
        Path record = Files.createDirectories(tmp.resolve("record"));
        try (InProcessServer trail = InProcessServer.start(tmp.resolve("data"))) {
            Api api = trail.api();
            List<String> command = helperJava("-Xmx128m");
            command.addAll(List.of(TeeMain.class.getName(), record.toString()));
            command.addAll(launcherProxy(api.base(), server("files-test", 0, record)));
            List<String> stderr = new CopyOnWriteArrayList<>();
            McpSyncClient client = client(command, stderr);
            assertThat(client.getServerInfo().name()).isEqualTo("files-test");
            assertThat(client.listTools().tools()).hasSize(4);
            assertThat(text(client.callTool(new CallToolRequest("echo", Map.of("text", "héllo ☃"))))).isEqualTo("héllo ☃");
            CallToolResult failed = client.callTool(new CallToolRequest("fail", Map.of("text", "no disk")));
            assertThat(failed.isError()).isTrue();
            String big = text(client.callTool(new CallToolRequest("big", Map.of())));
            assertThat(big).hasSize(TestMcpServer.BIG_TEXT_UNIT.length() * TestMcpServer.BIG_UNITS);
            assertThat(text(client.callTool(new CallToolRequest("slow", Map.of("ms", 300))))).isEqualTo("slept");
            client.closeGracefully();

            JsonNode events = awaitEvents(api, "mcp:files-test", 8);
            List<String> shape = new ArrayList<>();
            events.forEach(e -> shape.add(e.get("action_type").asText() + " " + e.get("action_name").asText()
                    + (e.has("action_status") ? " " + e.get("action_status").asText() : "")));
            assertThat(shape).containsExactly("TOOL_CALL echo", "TOOL_RESULT echo success", "TOOL_CALL fail",
                    "TOOL_RESULT fail error", "TOOL_CALL big", "TOOL_RESULT big success", "TOOL_CALL slow",
                    "TOOL_RESULT slow success");
            String session = events.get(0).get("session_id").asText();
            for (int i = 0; i < 8; i += 2) {
                JsonNode call = events.get(i);
                JsonNode result = events.get(i + 1);
                assertThat(call.get("session_id").asText()).isEqualTo(session);
                assertThat(result.get("session_id").asText()).isEqualTo(session);
                assertThat(result.get("metadata").get("jsonrpc_id")).isEqualTo(call.get("metadata").get("jsonrpc_id"));
                assertThat(result.get("duration_ms").asLong()).isGreaterThanOrEqualTo(0);
                assertThat(call.get("source").asText()).isEqualTo("mcp-proxy");
            }
            assertThat(session).matches("[0-9a-f-]{36}");
            assertThat(events.get(0).get("action_input").get("text").asText()).isEqualTo("héllo ☃");
            assertThat(events.get(1).get("action_output").get("content").get(0).get("text").asText()).isEqualTo("héllo ☃");
            assertThat(events.get(3).get("error_message").asText()).isEqualTo("the tool failed: no disk");
            assertThat(events.get(7).get("duration_ms").asLong()).isGreaterThanOrEqualTo(300);
            // One capture stream for the proxy process, numbered 1..8; its exit ends it (CAPTURE_END, 9).
            for (int i = 0; i < 8; i++) {
                assertThat(events.get(i).get("capture_id").asText()).isEqualTo(events.get(0).get("capture_id").asText());
                assertThat(events.get(i).get("capture_seq").asLong()).isEqualTo(i + 1);
            }
            Await.untilTrue("the proxy's exit ends its stream", Duration.ofSeconds(90), () -> all(api, "mcp:files-test").size() == 9);
            JsonNode end = all(api, "mcp:files-test").get(8);
            assertThat(end.get("action_type").asText()).isEqualTo("CAPTURE_END");
            assertThat(end.get("capture_seq").asLong()).isEqualTo(9);
            assertThat(end.get("capture_last").asBoolean()).isTrue();
            assertThat(end.get("capture_id").asText()).isEqualTo(events.get(0).get("capture_id").asText());

            // Both directions, byte for byte: what the client wrote is what the server read, and back.
            Path clientOut = record.resolve("client-out");
            Path serverIn = record.resolve("server-in");
            await(() -> size(serverIn) == size(clientOut), "the server has read everything the client wrote");
            assertThat(Files.readAllBytes(serverIn)).isEqualTo(Files.readAllBytes(clientOut));
            assertThat(Files.readAllBytes(record.resolve("client-in"))).isEqualTo(Files.readAllBytes(record.resolve("server-out")));

            // The 1 MiB result does not fit one event: its summary carries the hash of what passed through.
            JsonNode summary = events.get(5).get("action_output");
            assertThat(summary.get("omitted").asText()).contains("larger than one event");
            String bigLine = Arrays.stream(Files.readString(record.resolve("server-out"), StandardCharsets.UTF_8).split("\n"))
                    .filter(l -> l.contains(TestMcpServer.BIG_TEXT_UNIT.repeat(4))).findFirst().orElseThrow();
            JsonNode answer = StrictJson.parse(bigLine.getBytes(StandardCharsets.UTF_8), 100);
            assertThat(summary.get("canonical_sha256").asText())
                    .isEqualTo(EventContent.sha256(Rfc8785.canonicalize(answer.get("result"))));
            assertThat(spooled(tmp.resolve("spool"))).isZero();
            assertThat(stderr).noneMatch(l -> l.startsWith(McpProxy.NOTICE_PREFIX));
        }
    }

    @Test
    void theSessionGoesOnWhileTrailproofIsDownAndWhatWasSpooledIsSentWhenItComesBack() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path spool = tmp.resolve("spool");
        List<String> stderr = new CopyOnWriteArrayList<>();
        McpSyncClient client = client(javaProxy(url, server("down-test", 0, null)), stderr);
        assertThat(text(client.callTool(new CallToolRequest("echo", Map.of("text", "while down"))))).isEqualTo("while down");
        assertThat(client.callTool(new CallToolRequest("fail", Map.of("text", "x"))).isError()).isTrue();
        await(() -> stderr.stream().anyMatch(l -> l.startsWith(McpProxy.NOTICE_PREFIX)), "the proxy said the server is away");
        await(() -> {
            try {
                return spooled(spool) >= 1;
            } catch (IOException e) {
                return false;
            }
        }, "the events are spooled");
        try (InProcessServer trail = InProcessServer.start(tmp.resolve("data"), "server.port", Integer.toString(port))) {
            // Still the same session: the proxy finds the server back and sends the spool, then what follows.
            assertThat(text(client.callTool(new CallToolRequest("echo", Map.of("text", "after"))))).isEqualTo("after");
            JsonNode events = awaitEvents(trail.api(), "mcp:down-test", 6);
            assertThat(events.get(0).get("action_input").get("text").asText()).isEqualTo("while down");
            assertThat(events.get(3).get("action_status").asText()).isEqualTo("error");
            assertThat(events.get(4).get("action_input").get("text").asText()).isEqualTo("after");
            List<ProcessHandle> proxy = children("down-test");
            assertThat(proxy).as("the proxy process").hasSize(1);
            client.closeGracefully();
            await(() -> !proxy.get(0).isAlive(), "the proxy exited");
            await(() -> {
                try {
                    return spooled(spool) == 0;
                } catch (IOException e) {
                    return false;
                }
            }, "the spool is empty");
            // Every batch is spooled before it is sent and unspooled once stored: with the spool empty
            // and the proxy gone, every send was answered, and a batch sent twice would be here now.
            assertThat(events(trail.api(), "mcp:down-test").size()).as("nothing stored twice").isEqualTo(6);
        }
        List<String> ours = stderr.stream().filter(l -> l.startsWith(McpProxy.NOTICE_PREFIX)).toList();
        assertThat(ours).as("one line on standard error").hasSize(1);
        assertThat(ours.get(0)).contains("cannot reach the trailproof server").contains(spool.toString());
    }

    @Test
    void batchesSpooledByARunThatEndedAreSentByTheNextRun() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        Path spool = tmp.resolve("spool");
        List<String> stderr = new CopyOnWriteArrayList<>();
        McpSyncClient first = client(javaProxy(url, server("later-test", 0, null)), stderr);
        first.callTool(new CallToolRequest("echo", Map.of("text", "first run")));
        first.closeGracefully();
        await(() -> {
            try {
                return spooled(spool) >= 1;
            } catch (IOException e) {
                return false;
            }
        }, "the first run's events are spooled");
        try (InProcessServer trail = InProcessServer.start(tmp.resolve("data"), "server.port", Integer.toString(port))) {
            McpSyncClient second = client(javaProxy(url, server("later-test", 0, null)), stderr);
            second.callTool(new CallToolRequest("echo", Map.of("text", "second run")));
            JsonNode events = awaitEvents(trail.api(), "mcp:later-test", 4);
            assertThat(events.get(0).get("action_input").get("text").asText()).isEqualTo("first run");
            assertThat(events.get(2).get("action_input").get("text").asText()).isEqualTo("second run");
            assertThat(events.get(0).get("session_id").asText()).isNotEqualTo(events.get(2).get("session_id").asText());
            second.closeGracefully();
        }
    }

    @Test
    void theServersExitCodeIsTheProxysAndSigtermReachesTheServer() throws Exception {
        int port = freePort();
        String url = "http://127.0.0.1:" + port;
        String init = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}\n";

        ProcessBuilder exits = ServerProcess.onTestJdk(new ProcessBuilder(launcherProxy(url, server("exit-test", 7, null))));
        exits.environment().put("TRAILPROOF_SPOOL_DIR", tmp.resolve("spool").toString());
        exits.redirectError(tmp.resolve("exit.err").toFile());
        Process p = exits.start();
        p.getOutputStream().write(init.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().flush();
        String answer = readLine(p.getInputStream());
        assertThat(answer).contains("\"exit-test\"");
        p.getOutputStream().close(); // the client's end of input is the server's: it exits with 7
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(Files.readString(tmp.resolve("exit.err"))).isEqualTo(7);

        ProcessBuilder killed = ServerProcess.onTestJdk(new ProcessBuilder(launcherProxy(url, server("signal-test", 0, null))));
        killed.environment().put("TRAILPROOF_SPOOL_DIR", tmp.resolve("spool").toString());
        killed.redirectError(tmp.resolve("signal.err").toFile());
        Process q = killed.start();
        q.getOutputStream().write(init.getBytes(StandardCharsets.UTF_8));
        q.getOutputStream().flush();
        assertThat(readLine(q.getInputStream())).contains("\"signal-test\"");
        // (the launcher's standard error filter is a child of the process too)
        List<ProcessHandle> children = q.toHandle().children()
                .filter(h -> h.info().command().orElse("").endsWith("java")).toList();
        assertThat(children).hasSize(1);
        // SIGTERM to the proxy, which passes it on. Only the signal: Process.destroy() would also close
        // the proxy's standard input, whose end the proxy passes on as the end of the session.
        q.toHandle().destroy();
        assertThat(q.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(q.exitValue()).as("the server got SIGTERM and its exit code is the proxy's; the proxy's standard error: %s",
                Files.readString(tmp.resolve("signal.err"))).isEqualTo(TestMcpServer.TERM_EXIT);
        assertThat(children.get(0).isAlive()).isFalse();

        // SIGINT, as Ctrl-C in a terminal. A shell without job control starts a command in the background
        // with SIGINT ignored, an ignored signal stays ignored in every process started from it, and a JVM
        // takes no handler for it then: so the proxy starts with SIGINT at its default, as from a terminal,
        // however the build itself was started.
        List<String> atDefault = new ArrayList<>(List.of("env", "--default-signal=INT"));
        atDefault.addAll(javaProxy(url, server("int-test", 0, null)));
        ProcessBuilder interrupted = new ProcessBuilder(atDefault);
        interrupted.environment().put("TRAILPROOF_SPOOL_DIR", tmp.resolve("spool").toString());
        interrupted.redirectError(tmp.resolve("int.err").toFile());
        Process r = interrupted.start();
        r.getOutputStream().write(init.getBytes(StandardCharsets.UTF_8));
        r.getOutputStream().flush();
        assertThat(readLine(r.getInputStream())).contains("\"int-test\"");
        assertThat(new ProcessBuilder("kill", "-s", "INT", Long.toString(r.pid())).start().waitFor()).isZero();
        assertThat(r.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(r.exitValue()).as("the server got SIGINT").isEqualTo(TestMcpServer.INT_EXIT);
    }

    @Test
    void arbitraryFramingPassesThroughByteForByteAndToolCallsInBatchesAreRecorded() throws Exception {
        try (InProcessServer trail = InProcessServer.start(tmp.resolve("data"))) {
            // `cat` as the MCP server echoes every byte: what comes back must be exactly what went in.
            ProcessBuilder pb = new ProcessBuilder(javaProxy(trail.api().base(), List.of("cat")));
            pb.environment().put("TRAILPROOF_SPOOL_DIR", tmp.resolve("spool").toString());
            pb.environment().put("TRAILPROOF_AGENT_ID", "framing-test");
            pb.redirectError(tmp.resolve("cat.err").toFile());
            Process p = pb.start();
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            sent.writeBytes(("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"a\",\"arguments\":{\"k\":\"☃\"}}},"
                    + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}]\n").getBytes(StandardCharsets.UTF_8));
            sent.writeBytes("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\r\n".getBytes(StandardCharsets.UTF_8));
            sent.writeBytes(("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"blob\":\"" + "z".repeat(5 << 20) + "\"}}\n")
                    .getBytes(StandardCharsets.UTF_8));
            sent.writeBytes("\n  \n{\"not\": json\n\u0000\u00ff".getBytes(StandardCharsets.ISO_8859_1));
            byte[] all = sent.toByteArray();
            ByteArrayOutputStream received = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> {
                try {
                    p.getInputStream().transferTo(received);
                } catch (IOException ignored) {
                    // ends with the proxy
                }
            });
            reader.start();
            Random random = new Random(7);
            OutputStream in = p.getOutputStream();
            for (int at = 0; at < all.length; ) {
                int n = Math.min(all.length - at, 1 + random.nextInt(random.nextBoolean() ? 7 : 200_000));
                in.write(all, at, n);
                in.flush();
                at += n;
            }
            in.close();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            reader.join();
            assertThat(p.exitValue()).isZero();
            assertThat(received.toByteArray()).isEqualTo(all);
            JsonNode events = awaitEvents(trail.api(), "framing-test", 2);
            assertThat(events.get(0).get("action_input").get("k").asText()).isEqualTo("☃");
            assertThat(events.get(1).get("action_type").asText()).isEqualTo("TOOL_RESULT");
            assertThat(events.get(1).get("action_status").asText()).isEqualTo("success");
        }
    }

    /** The gate policy of {@link #theGateForwardsOnlyAllowedCallsAndOtherMessagesFlowWhileOneWaits}. */
    private static final String GATE_POLICY = """
            {"policies": [{"name": "mcp-gates", "rules": [
              {"name": "no-secrets", "type": "pattern", "for_field": "action_input.text", "deny_pattern": "secret",
               "effect": "deny", "reason": "secrets stay inside"},
              {"name": "slow-needs-a-person", "type": "absence", "deny": "slow", "effect": "ask",
               "reason": "slow calls need a person"}]}]}""";

    private static JsonNode decisionFor(Api api, String agent, String tool, int nth) throws Exception {
        List<JsonNode> found = new ArrayList<>();
        Await.untilTrue("decision " + nth + " of " + tool, Duration.ofSeconds(90), () -> {
            found.clear();
            events(api, agent).forEach(e -> {
                if (e.path("action_type").asText().equals("DECISION") && e.path("action_name").asText().equals(tool)) {
                    found.add(e);
                }
            });
            return found.size() > nth;
        });
        return found.get(nth);
    }

    @Test
    void theGateForwardsOnlyAllowedCallsAndOtherMessagesFlowWhileOneWaits() throws Exception {
        Path record = Files.createDirectories(tmp.resolve("record"));
        try (InProcessServer trail = InProcessServer.start(tmp.resolve("data"))) {
            Api api = trail.api();
            assertThat(api.send(HttpRequest.newBuilder(URI.create(api.base() + "/v1/admin/gate-policy"))
                    .header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(GATE_POLICY))).status()).isEqualTo(201);
            List<String> command = javaProxy(api.base(), server("gate-test", 0, record));
            command.addAll(command.indexOf("--"), List.of("--gate", "--ask-wait", "90"));
            List<String> stderr = new CopyOnWriteArrayList<>();
            McpSyncClient client = client(command, stderr);
            String agent = "mcp:gate-test";

            assertThat(text(client.callTool(new CallToolRequest("echo", Map.of("text", "hello"))))).isEqualTo("hello");
            CallToolResult denied = client.callTool(new CallToolRequest("echo", Map.of("text", "the secret plan")));
            assertThat(denied.isError()).isTrue();
            assertThat(text(denied)).contains("trailproof gate denied echo").contains("no-secrets")
                    .contains("secrets stay inside");

            // An ask waits for a person while other calls go on; the approved call then runs.
            CompletableFuture<CallToolResult> waiting = CompletableFuture.supplyAsync(
                    () -> client.callTool(new CallToolRequest("slow", Map.of("ms", 1))));
            JsonNode ask = decisionFor(api, agent, "slow", 0);
            assertThat(text(client.callTool(new CallToolRequest("echo", Map.of("text", "meanwhile"))))).isEqualTo("meanwhile");
            assertThat(waiting).isNotDone();
            assertThat(api.post("/v1/approvals/" + ask.get("id").asText(), "{\"approve\": true, \"comment\": \"fine\"}")
                    .status()).isEqualTo(201);
            assertThat(text(waiting.get(90, TimeUnit.SECONDS))).isEqualTo("slept");

            // An ask a person denies never reaches the server.
            CompletableFuture<CallToolResult> refused = CompletableFuture.supplyAsync(
                    () -> client.callTool(new CallToolRequest("slow", Map.of("ms", 2))));
            JsonNode second = decisionFor(api, agent, "slow", 1);
            api.post("/v1/approvals/" + second.get("id").asText(), "{\"approve\": false, \"comment\": \"no\"}");
            CallToolResult no = refused.get(90, TimeUnit.SECONDS);
            assertThat(no.isError()).isTrue();
            assertThat(text(no)).contains("an approver denied slow");
            client.closeGracefully();

            // TOOL_CALL hello, TOOL_RESULT, meanwhile, slow (approved): each bound to its decision.
            JsonNode events = awaitEvents(api, agent, 13);
            List<String> calls = new ArrayList<>();
            Map<String, JsonNode> byId = new HashMap<>();
            events.forEach(e -> byId.put(e.get("id").asText(), e));
            for (JsonNode e : events) {
                assertThat(e.get("action_type").asText()).isNotEqualTo("GATE_VIOLATION");
                if (e.get("action_type").asText().equals("TOOL_CALL")) {
                    JsonNode decision = byId.get(e.path("decision_id").asText());
                    assertThat(decision).as("the decision of %s", e).isNotNull();
                    assertThat(decision.get("action_type").asText()).isEqualTo("DECISION");
                    assertThat(decision.get("action_input")).isEqualTo(e.get("action_input"));
                    calls.add(e.get("action_name").asText() + " " + e.get("action_input"));
                }
            }
            assertThat(calls).containsExactly("echo {\"text\":\"hello\"}", "echo {\"text\":\"meanwhile\"}",
                    "slow {\"ms\":1}");
            String serverIn = Files.readString(record.resolve("server-in"), StandardCharsets.UTF_8);
            assertThat(serverIn).contains("meanwhile").doesNotContain("secret").doesNotContain("\"ms\":2");
        }
    }

    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            line.write(b);
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
