package io.trailproof.llmgateway;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * A plain blocking HTTP/1.1 client for the one upstream, made for calls that run on a thread of
 * their own: the call's thread writes the request and reads the answer itself, with no thread
 * of the client's own in between, so an answer's pieces reach the gateway's caller without a hand-over
 * (the JDK's {@code HttpClient} passes each piece through its selector thread and costs several times
 * the CPU per call). HTTPS with the JDK's trust store and host name verification.
 *
 * <p>Idle connections are kept for reuse for at most {@link #IDLE_LIMIT}, shorter than the idle
 * time-outs servers commonly use, so a reused connection is rarely one the upstream has closed; a
 * call is never sent twice (a reused connection that fails is the caller's failure, as any other).
 */
final class UpstreamClient implements AutoCloseable {

    static final Duration IDLE_LIMIT = Duration.ofSeconds(4);
    private static final int MAX_HEAD_BYTES = 256 * 1024;
    private static final int MAX_IDLE = 256;

    /** The upstream cannot be reached: nothing was sent. */
    static final class Unreachable extends IOException {
        private static final long serialVersionUID = 1L;

        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** An answer's status line and headers, and its body with the framing undone. */
    static final class Answer implements AutoCloseable {
        final int status;
        /** Header names as the upstream wrote them, in order. */
        final List<Map.Entry<String, String>> headers;
        final InputStream body;
        private final Connection connection;
        private final BodyStream framing;

        private Answer(int status, List<Map.Entry<String, String>> headers, Connection connection, BodyStream framing) {
            this.status = status;
            this.headers = headers;
            this.connection = connection;
            this.framing = framing;
            this.body = framing;
        }

        String header(String name) {
            for (Map.Entry<String, String> h : headers) {
                if (h.getKey().equalsIgnoreCase(name)) {
                    return h.getValue();
                }
            }
            return null;
        }

        List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (Map.Entry<String, String> h : headers) {
                if (h.getKey().equalsIgnoreCase(name)) {
                    values.add(h.getValue());
                }
            }
            return values;
        }

        /** Returns the connection for reuse when the body was read to its end, else closes it. */
        @Override
        public void close() {
            connection.release(framing.complete() && framing.reusable);
        }
    }

    private final String host;
    private final int port;
    private final boolean tls;
    private final String hostHeader;
    private final int connectTimeoutMillis;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    /** The connections of the calls in flight, so that {@link #close()} can break them off. */
    private final Set<Connection> busy = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final SSLSocketFactory tlsSockets;

    UpstreamClient(URI base, Duration connectTimeout) {
        this(base, connectTimeout, (SSLSocketFactory) SSLSocketFactory.getDefault());
    }

    /** @param tlsSockets makes the TLS sockets (the JDK's default trusts the JDK's certificates) */
    UpstreamClient(URI base, Duration connectTimeout, SSLSocketFactory tlsSockets) {
        this.tlsSockets = tlsSockets;
        this.tls = "https".equalsIgnoreCase(base.getScheme());
        this.host = base.getHost();
        this.port = base.getPort() >= 0 ? base.getPort() : tls ? 443 : 80;
        this.hostHeader = (host.contains(":") ? "[" + host + "]" : host) + (base.getPort() >= 0 ? ":" + port : "");
        this.connectTimeoutMillis = (int) connectTimeout.toMillis();
    }

    /**
     * Sends one request and reads the answer's head; the body is read from {@link Answer#body}.
     *
     * @param target the request target: path and query
     * @param headers the headers to send (without {@code Host}, {@code Content-Length} and the hop-by-hop ones)
     * @param body the body, sent with its {@code Content-Length} unless empty on a method without one
     * @throws Unreachable when no connection could be made (nothing was sent)
     * @throws IOException when the connection failed before the answer's head was read
     */
    Answer send(String method, String target, List<Map.Entry<String, String>> headers, byte[] body, boolean withLength)
            throws IOException {
        Connection c = take();
        try {
            StringBuilder head = new StringBuilder(256);
            head.append(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
            for (Map.Entry<String, String> h : headers) {
                head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
            }
            if (withLength || body.length > 0) {
                head.append("Content-Length: ").append(body.length).append("\r\n");
            }
            head.append("\r\n");
            OutputStream out = c.out;
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            while (true) {
                List<Map.Entry<String, String>> answerHeaders = new ArrayList<>();
                int status = readHead(c.in, answerHeaders);
                if (status >= 100 && status < 200 && status != 101) {
                    continue; // an interim answer: the final one follows
                }
                BodyStream framing = framing(method, status, answerHeaders, c.in);
                return new Answer(status, answerHeaders, c, framing);
            }
        } catch (IOException | RuntimeException e) {
            c.release(false);
            throw e;
        }
    }

    private Connection take() throws Unreachable {
        if (closed) {
            throw new Unreachable("the gateway is stopping", null);
        }
        long now = System.nanoTime();
        for (Connection c = idle.pollFirst(); c != null; c = idle.pollFirst()) {
            if (now - c.idleSince < IDLE_LIMIT.toNanos() && !c.socket.isClosed()) {
                busy.add(c);
                return c;
            }
            c.close();
        }
        try {
            Socket socket;
            if (tls) {
                SSLSocket ssl = (SSLSocket) tlsSockets.createSocket();
                SSLParameters parameters = ssl.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS");
                if (!host.contains(":") && !host.matches("[0-9.]+")) {
                    parameters.setServerNames(List.of(new SNIHostName(host))); // never for an IP address
                }
                ssl.setSSLParameters(parameters);
                socket = ssl;
            } else {
                socket = new Socket();
            }
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), connectTimeoutMillis);
            if (socket instanceof SSLSocket ssl) {
                ssl.startHandshake();
            }
            Connection c = new Connection(socket);
            busy.add(c);
            if (closed) {
                c.release(false);
                throw new Unreachable("the gateway is stopping", null);
            }
            return c;
        } catch (Unreachable stopping) {
            throw stopping;
        } catch (IOException | IllegalArgumentException e) {
            throw new Unreachable(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), e);
        }
    }

    /** The status code; fills {@code headers}. */
    private static int readHead(InputStream in, List<Map.Entry<String, String>> headers) throws IOException {
        String statusLine = line(in, true);
        if (!statusLine.startsWith("HTTP/1.") || statusLine.length() < 12) {
            throw new IOException("not an HTTP/1.1 answer: " + statusLine.substring(0, Math.min(60, statusLine.length())));
        }
        int status;
        try {
            status = Integer.parseInt(statusLine.substring(9, 12));
        } catch (NumberFormatException e) {
            throw new IOException("a status line without a status: " + statusLine);
        }
        int total = statusLine.length();
        while (true) {
            String line = line(in, false);
            total += line.length() + 2;
            if (total > MAX_HEAD_BYTES) {
                throw new IOException("the answer's headers are longer than " + (MAX_HEAD_BYTES >> 10) + " KiB");
            }
            if (line.isEmpty()) {
                return status;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("a header line without a name: " + line);
            }
            headers.add(Map.entry(line.substring(0, colon).strip(), line.substring(colon + 1).strip()));
        }
    }

    /** One line without its CRLF; {@code first}: the connection closing before any byte is an error of its own. */
    private static String line(InputStream in, boolean first) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new IOException(first && b.size() == 0 ? "the upstream closed the connection without an answer"
                        : "the upstream closed the connection in the middle of the answer's head");
            }
            if (c == '\n') {
                byte[] bytes = b.toByteArray();
                int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
            }
            if (b.size() > MAX_HEAD_BYTES) {
                throw new IOException("an answer's header line is longer than " + (MAX_HEAD_BYTES >> 10) + " KiB");
            }
            b.write(c);
        }
    }

    private static BodyStream framing(String method, int status, List<Map.Entry<String, String>> headers, InputStream in)
            throws IOException {
        boolean close = false;
        String transfer = null;
        String length = null;
        for (Map.Entry<String, String> h : headers) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (name.equals("connection") && h.getValue().toLowerCase(Locale.ROOT).contains("close")) {
                close = true;
            } else if (name.equals("transfer-encoding")) {
                transfer = h.getValue();
            } else if (name.equals("content-length")) {
                if (length != null && !length.equals(h.getValue())) {
                    throw new IOException("the answer has two different Content-Length headers");
                }
                length = h.getValue();
            }
        }
        if ("HEAD".equals(method) || status == 204 || status == 304) {
            return new BodyStream(in, 0, false, !close);
        }
        if (transfer != null) {
            if (!transfer.toLowerCase(Locale.ROOT).strip().endsWith("chunked")) {
                return new BodyStream(in, -1, false, false); // read until the connection closes
            }
            return new BodyStream(in, -1, true, !close);
        }
        if (length != null) {
            try {
                long n = Long.parseLong(length.strip());
                if (n < 0) {
                    throw new NumberFormatException();
                }
                return new BodyStream(in, n, false, !close);
            } catch (NumberFormatException e) {
                throw new IOException("the answer's Content-Length is not a number: " + length);
            }
        }
        return new BodyStream(in, -1, false, false);
    }

    /**
     * An answer's body: by {@code Content-Length}, chunked (chunks decoded, trailers read and
     * dropped), or until the connection closes. A read returns what has arrived, never waits for more.
     */
    static final class BodyStream extends InputStream {
        private final InputStream in;
        private final boolean chunked;
        final boolean reusable;
        private long left;
        private boolean done;

        BodyStream(InputStream in, long length, boolean chunked, boolean reusable) {
            this.in = in;
            this.chunked = chunked;
            this.reusable = reusable && (length >= 0 || chunked);
            this.left = chunked ? 0 : length;
            this.done = length == 0 && !chunked;
        }

        boolean complete() {
            return done;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (done) {
                return -1;
            }
            if (len == 0) {
                return 0;
            }
            if (chunked && left == 0) {
                left = nextChunk();
                if (left == 0) {
                    done = true;
                    return -1;
                }
            }
            int want = left < 0 ? len : (int) Math.min(len, left);
            int n = in.read(b, off, want);
            if (n < 0) {
                if (left < 0) {
                    done = true;
                    return -1;
                }
                throw new IOException("the upstream closed the connection before the end of the answer");
            }
            if (left > 0) {
                left -= n;
                if (left == 0 && chunked) {
                    String end = line(in, false);
                    if (!end.isEmpty()) {
                        throw new IOException("a chunk of the answer does not end where its size says");
                    }
                } else if (left == 0) {
                    done = true;
                }
            }
            return n;
        }

        /** The next chunk's size; 0 for the last chunk, whose trailers are read here. */
        private long nextChunk() throws IOException {
            String sizeLine = line(in, false);
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).strip();
            long size;
            try {
                size = Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                throw new IOException("a chunk size that is not a number: " + sizeLine);
            }
            if (size < 0) {
                throw new IOException("a negative chunk size");
            }
            if (size == 0) {
                while (!line(in, false).isEmpty()) {
                    // trailers: not passed on
                }
            }
            return size;
        }
    }

    /** One connection to the upstream. */
    private final class Connection {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        long idleSince;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
            this.out = socket.getOutputStream();
        }

        void release(boolean reuse) {
            busy.remove(this);
            if (reuse && !closed && idle.size() < MAX_IDLE) {
                idleSince = System.nanoTime();
                idle.addFirst(this);
            } else {
                close();
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /**
     * Closes every connection, the idle ones and those of calls in flight: a call's thread blocked
     * reading its answer then fails at once (a platform thread's socket read does not end on an
     * interrupt). No call gets a connection afterwards.
     */
    @Override
    public void close() {
        closed = true;
        for (Connection c = idle.pollFirst(); c != null; c = idle.pollFirst()) {
            c.close();
        }
        for (Connection c : busy) {
            c.close();
        }
    }
}
