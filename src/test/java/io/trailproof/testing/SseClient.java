package io.trailproof.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A plain HTTP/1.1 client for Server-Sent Events over a raw socket: it sends one GET, reads the
 * status and headers, then the body (chunked or not) one SSE block at a time. Reading nothing
 * stalls it for real (the socket's receive buffer can be made small), which is how tests play a
 * slow consumer.
 */
public final class SseClient implements AutoCloseable {

    /** One SSE block: its fields (id, event, data) and its comment lines. Null fields were absent. */
    public record Frame(String id, String event, String data, String comment) {
        public boolean isEvent() {
            return "event".equals(event);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final int status;
    private final Map<String, String> headers;
    private final boolean chunked;
    private long chunkLeft;
    private boolean ended;

    private SseClient(Socket socket, InputStream in, int status, Map<String, String> headers) {
        this.socket = socket;
        this.in = in;
        this.status = status;
        this.headers = headers;
        this.chunked = "chunked".equalsIgnoreCase(headers.get("transfer-encoding"));
    }

    /** Opens {@code pathAndQuery}; {@code extraHeaders} are "Name: value" lines. */
    public static SseClient open(int port, String pathAndQuery, String... extraHeaders) throws IOException {
        return open(port, 0, pathAndQuery, extraHeaders);
    }

    /** As {@link #open(int, String, String...)}, with a receive buffer of {@code receiveBuffer} bytes (0: default). */
    public static SseClient open(int port, int receiveBuffer, String pathAndQuery, String... extraHeaders) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) {
            s.setReceiveBufferSize(receiveBuffer);
        }
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        s.setSoTimeout(30_000);
        StringBuilder req = new StringBuilder("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1:" + port
                + "\r\nAccept: text/event-stream\r\n");
        for (String h : extraHeaders) {
            req.append(h).append("\r\n");
        }
        req.append("\r\n");
        OutputStream out = s.getOutputStream();
        out.write(req.toString().getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = new BufferedInputStream(s.getInputStream(), 8192);
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h; !(h = line(in)).isEmpty(); ) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        return new SseClient(s, in, status, headers);
    }

    public int status() {
        return status;
    }

    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    /** The whole body of a non-streaming answer (an error). */
    public String body() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        String length = header("content-length");
        if (length != null) {
            long n = Long.parseLong(length);
            for (long i = 0; i < n && (c = in.read()) >= 0; i++) {
                b.write(c);
            }
        } else {
            while ((c = bodyByte()) >= 0) {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    public void timeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** The next SSE block, or null at the end of the stream. A read timeout throws {@link SocketTimeoutException}. */
    public Frame next() throws IOException {
        String id = null;
        String event = null;
        StringBuilder data = null;
        StringBuilder comment = null;
        boolean any = false;
        while (true) {
            String line = bodyLine();
            if (line == null) {
                return any ? new Frame(id, event, data == null ? null : data.toString(), comment == null ? null
                        : comment.toString()) : null;
            }
            if (line.isEmpty()) {
                if (any) {
                    return new Frame(id, event, data == null ? null : data.toString(), comment == null ? null
                            : comment.toString());
                }
                continue;
            }
            any = true;
            if (line.startsWith(":")) {
                comment = comment == null ? new StringBuilder(line.substring(1).trim()) : comment.append('\n').append(line.substring(1).trim());
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            switch (field) {
                case "id" -> id = value;
                case "event" -> event = value;
                case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                default -> throw new AssertionError("unexpected SSE field: " + line);
            }
        }
    }

    /** The next block that is an event or an overflow (comments skipped), or null at the end. */
    public Frame nextEvent() throws IOException {
        for (Frame f; (f = next()) != null; ) {
            if (f.event() != null) {
                return f;
            }
        }
        return null;
    }

    private String bodyLine() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = bodyByte()) >= 0 && c != '\n') {
            b.write(c);
        }
        if (c < 0 && b.size() == 0) {
            return null;
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    private int bodyByte() throws IOException {
        if (ended) {
            return -1;
        }
        if (!chunked) {
            int c = in.read();
            ended = c < 0;
            return c;
        }
        if (chunkLeft == 0) {
            String size;
            try {
                size = line(in);
                if (size.isEmpty()) {
                    size = line(in); // the CRLF after the previous chunk
                }
            } catch (EOFException e) {
                ended = true;
                return -1;
            }
            chunkLeft = Long.parseLong(size.split(";")[0].trim(), 16);
            if (chunkLeft == 0) {
                ended = true;
                return -1;
            }
        }
        int c = in.read();
        if (c < 0) {
            ended = true;
            return -1;
        }
        chunkLeft--;
        return c;
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        if (c < 0 && b.size() == 0) {
            throw new EOFException("connection closed");
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
