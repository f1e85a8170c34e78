package io.trailproof.llmgateway;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

/**
 * A model API for tests, on raw sockets so that it can do what real upstreams do and a test server
 * library would not let it: answer OpenAI chat, Responses and Anthropic Messages calls whole or
 * streamed, in pieces whose timing the test controls, with errors, and drop the connection before or
 * during an answer. The answer is chosen by the request's path and its {@code "model"}. Every request
 * it received is kept (headers and body) for the test to inspect.
 */
final class FakeModelApi implements AutoCloseable {

    /** A request as it arrived. */
    record Received(String method, String target, Map<String, List<String>> headers, byte[] body) {
        String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : v.get(0);
        }
    }

    private static final Pattern MODEL = Pattern.compile("\"model\"\\s*:\\s*\"([^\"]*)\"");

    private final ServerSocket socket;
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    final List<Received> received = new CopyOnWriteArrayList<>();
    /** Released by a test to let the {@code fake-gated} stream send its second piece. */
    final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

    FakeModelApi() throws IOException {
        this(new ServerSocket(0, 200, InetAddress.getLoopbackAddress()));
    }

    /** Listens on {@code socket}, which may be a TLS server socket. */
    FakeModelApi(ServerSocket socket) {
        this.socket = socket;
        threads.submit(this::accept);
    }

    String base() {
        return "http://127.0.0.1:" + socket.getLocalPort();
    }

    int port() {
        return socket.getLocalPort();
    }

    CountDownLatch gate(String name) {
        return gates.computeIfAbsent(name, k -> new CountDownLatch(1));
    }

    private Void accept() {
        while (!socket.isClosed()) {
            try {
                Socket s = socket.accept();
                s.setTcpNoDelay(true);
                threads.submit(() -> serve(s));
            } catch (IOException closed) {
                return null;
            }
        }
        return null;
    }

    private Void serve(Socket s) {
        try (s) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            while (true) {
                Received r = read(in);
                if (r == null) {
                    return null;
                }
                received.add(r);
                if (!answer(r, out)) {
                    return null; // dropped on purpose
                }
            }
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }

    private static Received read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : 0;
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] requestLine = lines[0].split(" ");
        Map<String, List<String>> headers = new ConcurrentHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT),
                        k -> new ArrayList<>()).add(lines[i].substring(colon + 1).strip());
            }
        }
        List<String> length = headers.get("content-length");
        byte[] body = length == null ? new byte[0] : in.readNBytes(Integer.parseInt(length.get(0)));
        return new Received(requestLine[0], requestLine[1], headers, body);
    }

    /** Writes the answer; false when the connection is to be dropped. */
    private boolean answer(Received r, OutputStream out) throws IOException, InterruptedException {
        Matcher m = MODEL.matcher(new String(r.body(), StandardCharsets.UTF_8));
        String model = m.find() ? m.group(1) : "";
        String path = r.target().contains("?") ? r.target().substring(0, r.target().indexOf('?')) : r.target();
        if (model.equals("fake-drop")) {
            return false;
        }
        if (path.endsWith("/v1/models")) {
            whole(out, 200, "application/json", "{\"object\":\"list\",\"data\":[{\"id\":\"fake-plain\",\"object\":\"model\"}]}");
            return true;
        }
        switch (model) {
            case "fake-error-400" -> whole(out, 400, "application/json", path.endsWith("/messages")
                    ? "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"max_tokens: Field required\"}}"
                    : "{\"error\":{\"message\":\"Invalid value for 'temperature'.\",\"type\":\"invalid_request_error\","
                            + "\"param\":\"temperature\",\"code\":null}}");
            case "fake-error-500" -> whole(out, 500, "application/json",
                    "{\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\","
                            + "\"param\":null,\"code\":null}}");
            case "fake-overloaded" -> whole(out, 529, "application/json",
                    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
            case "fake-gzip" -> gzip(out, FakeAnswers.chatPlain());
            default -> {
                if (path.endsWith("/v1/chat/completions")) {
                    chat(model, out);
                } else if (path.endsWith("/v1/responses")) {
                    responses(model, out);
                } else if (path.endsWith("/v1/messages")) {
                    messages(model, out);
                } else {
                    whole(out, 404, "application/json", "{\"error\":{\"message\":\"no such path\",\"type\":\"not_found\"}}");
                }
            }
        }
        return true;
    }

    private void chat(String model, OutputStream out) throws IOException, InterruptedException {
        switch (model) {
            case "fake-tools" -> stream(out, FakeAnswers.chatToolStream(), null, -1);
            case "fake-gated" -> stream(out, FakeAnswers.chatTextStream(), gate("fake-gated"), 1);
            case "fake-cut" -> {
                List<String> pieces = FakeAnswers.chatTextStream();
                streamHead(out);
                chunk(out, pieces.get(0));
                chunk(out, pieces.get(1));
                throw new IOException("cut on purpose");
            }
            default -> whole(out, 200, "application/json", FakeAnswers.chatPlain());
        }
    }

    private void responses(String model, OutputStream out) throws IOException, InterruptedException {
        if (model.equals("fake-tools")) {
            stream(out, FakeAnswers.responsesToolStream(), null, -1);
        } else {
            whole(out, 200, "application/json", FakeAnswers.responsesPlain());
        }
    }

    private void messages(String model, OutputStream out) throws IOException, InterruptedException {
        if (model.equals("fake-tools")) {
            stream(out, FakeAnswers.messagesToolStream(), null, -1);
        } else {
            whole(out, 200, "application/json", FakeAnswers.messagesPlain());
        }
    }

    private static void whole(OutputStream out, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\nContent-Type: " + type + "\r\nX-Request-Id: req_fake_" + status
                + "\r\nX-Upstream-Marker: kept\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.flush();
    }

    private static void gzip(OutputStream out, String body) throws IOException {
        ByteArrayOutputStream zipped = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
            z.write(body.getBytes(StandardCharsets.UTF_8));
        }
        byte[] bytes = zipped.toByteArray();
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: "
                + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.flush();
    }

    private static void streamHead(OutputStream out) throws IOException {
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\n"
                + "X-Request-Id: req_fake_stream\r\nTransfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** The pieces as separate chunks; after piece {@code gateAfter}, waits for {@code gate}. */
    private static void stream(OutputStream out, List<String> pieces, CountDownLatch gate, int gateAfter)
            throws IOException, InterruptedException {
        streamHead(out);
        for (int i = 0; i < pieces.size(); i++) {
            chunk(out, pieces.get(i));
            if (i + 1 == gateAfter && !gate.await(120, TimeUnit.SECONDS)) {
                throw new IOException("the gate was never opened");
            }
        }
        out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static void chunk(OutputStream out, String piece) throws IOException {
        byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
        threads.shutdownNow();
    }
}
