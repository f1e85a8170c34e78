package io.trailproof.mcp;

import java.time.Duration;
import io.trailproof.testing.Await;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities;
import io.modelcontextprotocol.spec.McpSchema.Tool;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A real MCP server on stdio, built with the official Java SDK, for the proxy's end-to-end tests.
 * Tools: {@code echo} (returns its {@code text}), {@code fail} (a result with {@code isError}),
 * {@code big} (about 1 MB of text), {@code slow} (waits {@code ms} milliseconds).
 *
 * <p>SIGTERM ends it with {@link #TERM_EXIT}, SIGINT with {@link #INT_EXIT}. Arguments: {@code NAME EXIT_CODE [RECORD_DIR]}. It exits with EXIT_CODE once its standard input
 * ends; with RECORD_DIR it writes every byte it reads to {@code RECORD_DIR/server-in} and every byte
 * it writes to {@code RECORD_DIR/server-out}, the server's own view of the session.
 */
public final class TestMcpServer {

    static final String BIG_TEXT_UNIT = "0123456789abcdef";
    static final int BIG_UNITS = 64 * 1024; // 1 MiB of text

    /** Exit code after SIGTERM reached the server. */
    static final int TERM_EXIT = 115;
    /** Exit code after SIGINT reached the server. */
    static final int INT_EXIT = 116;

    private TestMcpServer() {
    }

    @SuppressWarnings("removal")
    private static void onSignal(String name, int exitCode) {
        sun.misc.Signal.handle(new sun.misc.Signal(name), s -> {
            // A moment's work before ending, as a server finishing its answers does: a signal passed on
            // with the server's input closed as well would lose to the end of input.
            sleep(300);
            Runtime.getRuntime().halt(exitCode);
        });
    }

    public static void main(String[] args) throws Exception {
        String name = args[0];
        int exitCode = Integer.parseInt(args[1]);
        Path record = args.length > 2 ? Path.of(args[2]) : null;
        // A signal that reaches the server ends it with its own code, so a test sees which one arrived.
        onSignal("TERM", TERM_EXIT);
        onSignal("INT", INT_EXIT);
        CountDownLatch inputEnded = new CountDownLatch(1);
        InputStream in = new FilterInputStream(new FileInputStream(FileDescriptor.in)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n < 0) {
                    inputEnded.countDown();
                } else if (record != null) {
                    append(record.resolve("server-in"), b, off, n);
                }
                return n;
            }

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                int n = read(one, 0, 1);
                return n < 0 ? -1 : one[0] & 0xff;
            }
        };
        OutputStream out = new OutputStream() {
            private final OutputStream real = new FileOutputStream(FileDescriptor.out);

            @Override
            public synchronized void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public synchronized void write(byte[] b, int off, int len) throws IOException {
                if (record != null) {
                    append(record.resolve("server-out"), b, off, len);
                }
                real.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                real.flush();
            }
        };
        McpJsonMapper json = new JacksonMcpJsonMapper(new ObjectMapper());
        String textSchema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}";
        McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(json, in, out))
                .serverInfo(name, "1.2.3")
                .capabilities(ServerCapabilities.builder().tools(false).build())
                .tools(tool(json, "echo", textSchema, (a) -> CallToolResult.builder()
                                .addTextContent(String.valueOf(a.get("text"))).isError(false).build()),
                        tool(json, "fail", textSchema, (a) -> CallToolResult.builder()
                                .addTextContent("the tool failed: " + a.get("text")).isError(true).build()),
                        tool(json, "big", "{\"type\":\"object\"}", (a) -> CallToolResult.builder()
                                .addTextContent(BIG_TEXT_UNIT.repeat(BIG_UNITS)).isError(false).build()),
                        tool(json, "slow", "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"}}}", (a) -> {
                            sleep(((Number) a.get("ms")).longValue());
                            return CallToolResult.builder().addTextContent("slept").isError(false).build();
                        }))
                .build();
        inputEnded.await();
        server.closeGracefully();
        System.exit(exitCode);
    }

    private interface Handler {
        CallToolResult call(Map<String, Object> arguments);
    }

    private static SyncToolSpecification tool(McpJsonMapper json, String name, String schema, Handler handler) {
        return SyncToolSpecification.builder()
                .tool(Tool.builder().name(name).description("test tool " + name).inputSchema(json, schema).build())
                .callHandler((exchange, request) -> handler.call(request.arguments()))
                .build();
    }

    private static synchronized void append(Path file, byte[] b, int off, int len) throws IOException {
        try (OutputStream o = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            o.write(b, off, len);
        }
    }

    private static void sleep(long ms) {
        try {
            Await.pace(Duration.ofMillis(ms), "a server that takes its time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
