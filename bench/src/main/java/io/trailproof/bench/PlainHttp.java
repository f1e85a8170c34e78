package io.trailproof.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One persistent HTTP/1.1 connection used by one thread at a time, blocking, one request in flight:
 * what a plain agent or investigator client does, at a small fraction of the CPU of the JDK's
 * asynchronous client. The benchmark shares its 2 cores with the server, so the client's cost shows
 * up in every server figure; this keeps it low. Reads answers by Content-Length or chunked coding.
 */
final class PlainHttp implements Closeable {

    record Response(int status, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String host;
    private final int port;

    PlainHttp(int port) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        out = socket.getOutputStream();
        host = "127.0.0.1:" + port;
        this.port = port;
    }

    int port() {
        return port;
    }

    Response get(String path) throws IOException {
        out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return read();
    }

    Response post(String path, byte[] json) throws IOException {
        return post(path, json, "");
    }

    /** A POST with extra header lines ({@code "Name: value\r\n"} each). */
    Response post(String path, byte[] json, String extraHeaders) throws IOException {
        return post(path, json, "application/json", extraHeaders);
    }

    /**
     * As {@link #post(String, byte[], String)}, the answer's body read and dropped: for timing a
     * client whose own garbage collection must not be part of what it measures (a kept 780 KB answer
     * is a humongous G1 allocation in this JVM, and its pauses were the tail of replay timings).
     */
    int postDroppingAnswer(String path, byte[] json, String extraHeaders) throws IOException {
        send(path, json, "application/json", extraHeaders);
        return read(false).status();
    }

    /** A POST of a body of any type (OTLP protobuf, say), with extra header lines. */
    Response post(String path, byte[] json, String contentType, String extraHeaders) throws IOException {
        send(path, json, contentType, extraHeaders);
        return read();
    }

    /** A PUT of a JSON body (the gate policy). */
    Response put(String path, byte[] json) throws IOException {
        send("PUT", path, json, "application/json", "");
        return read();
    }

    private void send(String path, byte[] json, String contentType, String extraHeaders) throws IOException {
        send("POST", path, json, contentType, extraHeaders);
    }

    private void send(String method, String path, byte[] json, String contentType, String extraHeaders) throws IOException {
        byte[] head = (method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: " + contentType + "\r\n"
                + extraHeaders + "Content-Length: " + json.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[head.length + json.length];
        System.arraycopy(head, 0, request, 0, head.length);
        System.arraycopy(json, 0, request, head.length, json.length);
        out.write(request);
        out.flush();
    }

    /** Reads an answer and counts its body's bytes without keeping them (for answers larger than memory). */
    long drain(String path) throws IOException {
        out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        Response r = read(false);
        if (r.status() != 200) {
            throw new IOException(path + " answered " + r.status());
        }
        return drained;
    }

    private long drained;

    private Response read() throws IOException {
        return read(true);
    }

    private Response read(boolean keep) throws IOException {
        String status = line();
        if (!status.startsWith("HTTP/1.1 ")) {
            throw new IOException("not an HTTP/1.1 answer: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        String h;
        while (!(h = line()).isEmpty()) {
            String lower = h.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        drained = 0;
        ByteArrayOutputStream body = keep ? new ByteArrayOutputStream(length > 0 ? (int) length : 256) : null;
        if (chunked) {
            long size;
            while ((size = Long.parseLong(line().split(";")[0].trim(), 16)) > 0) {
                copy(size, body);
                line();
            }
            while (!line().isEmpty()) {
                // trailers
            }
        } else if (length >= 0) {
            copy(length, body);
        } else {
            throw new IOException("answer without a length");
        }
        return new Response(code, keep ? body.toByteArray() : new byte[0]);
    }

    private void copy(long n, ByteArrayOutputStream to) throws IOException {
        byte[] buf = this.buf;
        while (n > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, n));
            if (r < 0) {
                throw new EOFException("connection closed inside an answer");
            }
            if (to != null) {
                to.write(buf, 0, r);
            }
            drained += r;
            n -= r;
        }
    }

    private final byte[] buf = new byte[1 << 16];

    private String line() throws IOException {
        StringBuilder b = new StringBuilder(64);
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("connection closed");
            }
            if (c != '\r') {
                b.append((char) c);
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
