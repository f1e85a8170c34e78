package io.trailproof.cli;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One HTTP/1.1 GET over a plain socket, its body read as a channel straight into the caller's
 * buffers: the backup client's transport for {@code http://} servers. The JDK's {@code HttpClient}
 * hands a body over in 16 KB pieces through its own selector thread, and measured at about a third of
 * what the socket gives here (src/site/operations.md#backup-and-restore); a backup is one large
 * answer on a fresh connection, which needs nothing of a general client but the status, the headers
 * and a {@code Content-Length}.
 *
 * <p>Not thread-safe. The body of a {@code 200} must carry a {@code Content-Length} (the server's
 * always does); an answer with less is refused as cut off. A connection silent for the stall timeout
 * is closed, and the read waiting on it fails.
 */
final class PlainHttpGet implements Closeable {

    /** Longest status line and headers accepted. */
    private static final int MAX_HEAD_BYTES = 64 << 10;
    /** Longest error body read (an error answer is a short JSON object). */
    private static final int MAX_ERROR_BODY_BYTES = 1 << 20;

    private final SocketChannel channel;
    private final ScheduledExecutorService watchdog;
    private final Watchdog watch;
    private final int status;
    private final Map<String, String> headers;
    /** Body bytes that arrived with the headers, read before the socket. */
    private final ByteBuffer early;
    private final long contentLength;
    private long bodyRead;

    private PlainHttpGet(SocketChannel channel, ScheduledExecutorService watchdog, Watchdog watch, int status,
                         Map<String, String> headers, ByteBuffer early) {
        this.channel = channel;
        this.watchdog = watchdog;
        this.watch = watch;
        this.status = status;
        this.headers = headers;
        this.early = early;
        String length = headers.get("content-length");
        long n = -1;
        if (length != null) {
            try {
                n = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                n = -1;
            }
        }
        this.contentLength = n;
    }

    /**
     * Sends {@code GET base + pathAndQuery} on a new connection and reads the answer's head.
     *
     * @param base an {@code http://} URL (the caller sends anything else through the JDK's client)
     */
    static PlainHttpGet open(URI base, String pathAndQuery, String apiKey, Duration connectTimeout, Duration stall)
            throws IOException {
        if (!"http".equalsIgnoreCase(base.getScheme()) || base.getHost() == null) {
            throw new IllegalArgumentException("not an http:// URL: " + base);
        }
        String host = base.getHost();
        String bareHost = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        int port = base.getPort() > 0 ? base.getPort() : 80;
        SocketChannel ch = SocketChannel.open();
        ScheduledExecutorService watchdog = null;
        try {
            ch.socket().connect(new InetSocketAddress(bareHost, port), (int) connectTimeout.toMillis());
            watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "backup-stall-watchdog");
                t.setDaemon(true);
                return t;
            });
            String path = (base.getRawPath() == null ? "" : base.getRawPath()) + pathAndQuery;
            StringBuilder req = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(host).append(base.getPort() > 0 ? ":" + port : "").append("\r\n")
                    .append("User-Agent: trailproof-cli\r\nAccept: */*\r\nConnection: close\r\n");
            if (apiKey != null && !apiKey.isEmpty()) {
                req.append("Authorization: Bearer ").append(apiKey).append("\r\n");
            }
            ByteBuffer out = ByteBuffer.wrap(req.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            // From here on a silent connection is given up: also while the server prepares its answer.
            Watchdog watch = new Watchdog(ch, stall);
            watch.start(watchdog);
            try {
                while (out.hasRemaining()) {
                    ch.write(out);
                }
                return readHead(ch, watchdog, watch);
            } catch (ClosedChannelException e) {
                throw watch.explain(e);
            }
        } catch (IOException | RuntimeException e) {
            if (watchdog != null) {
                watchdog.shutdownNow();
            }
            ch.close();
            throw e;
        }
    }

    private static PlainHttpGet readHead(SocketChannel ch, ScheduledExecutorService watchdog, Watchdog watch)
            throws IOException {
        ByteBuffer head = ByteBuffer.allocate(MAX_HEAD_BYTES);
        int end;
        while ((end = endOfHead(head)) < 0) {
            if (!head.hasRemaining()) {
                throw new IOException("the server's answer has more than " + MAX_HEAD_BYTES + " bytes of headers");
            }
            if (ch.read(head) < 0) {
                throw new IOException("the server closed the connection before answering");
            }
            watch.progress();
        }
        String text = new String(head.array(), 0, end, StandardCharsets.ISO_8859_1);
        String[] lines = text.split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/1.")) {
            throw new IOException("the server's answer is not HTTP/1.x: " + lines[0]);
        }
        int status;
        try {
            status = Integer.parseInt(statusLine[1]);
        } catch (NumberFormatException e) {
            throw new IOException("the server's answer has no status code: " + lines[0]);
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        ByteBuffer early = ByteBuffer.wrap(head.array(), end + 4, head.position() - end - 4).slice();
        return new PlainHttpGet(ch, watchdog, watch, status, headers, early);
    }

    /** Index of the {@code \r\n\r\n} that ends the head in {@code b[0, position)}, or -1. */
    private static int endOfHead(ByteBuffer b) {
        byte[] a = b.array();
        for (int i = 0; i + 3 < b.position(); i++) {
            if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** Closes the channel when nothing arrived for the stall timeout, which fails the read waiting on it. */
    private static final class Watchdog {
        private final SocketChannel channel;
        private final long limitNanos;
        private final long everyMillis;
        private final AtomicLong lastProgress = new AtomicLong(System.nanoTime());
        private volatile boolean stalled;

        Watchdog(SocketChannel channel, Duration stall) {
            this.channel = channel;
            this.limitNanos = stall.toNanos();
            this.everyMillis = Math.max(1, Math.min(1000, stall.toMillis() / 4));
        }

        void start(ScheduledExecutorService on) {
            on.scheduleWithFixedDelay(() -> {
                if (System.nanoTime() - lastProgress.get() > limitNanos) {
                    stalled = true;
                    try {
                        channel.close();   // wakes the blocked read
                    } catch (IOException ignored) {
                        // closing is all that is wanted
                    }
                }
            }, everyMillis, everyMillis, TimeUnit.MILLISECONDS);
        }

        void progress() {
            lastProgress.set(System.nanoTime());
        }

        /** What a read that failed on a closed channel means: the watchdog's timeout, or the close itself. */
        IOException explain(ClosedChannelException e) {
            return stalled ? new SocketTimeoutException("the server sent nothing for "
                    + Duration.ofNanos(limitNanos).toSeconds() + " s; the transfer was given up") : e;
        }
    }

    int status() {
        return status;
    }

    /** A header's value (the first, when sent twice); names are case-insensitive. */
    Optional<String> header(String name) {
        return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }

    /** The {@code Content-Length}, or -1 when there is none. */
    long contentLength() {
        return contentLength;
    }

    /**
     * The body as a channel: reads end at {@code Content-Length} (then -1). A connection closed
     * before that is an {@link IOException}, so a cut-off answer never reads as a complete one.
     */
    ReadableByteChannel body() throws IOException {
        if (contentLength < 0) {
            throw new IOException("the server did not say how long its answer is (no Content-Length)");
        }
        return new ReadableByteChannel() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                return readBody(dst);
            }

            @Override
            public boolean isOpen() {
                return channel.isOpen();
            }

            @Override
            public void close() throws IOException {
                PlainHttpGet.this.close();
            }
        };
    }

    private int readBody(ByteBuffer dst) throws IOException {
        long left = contentLength - bodyRead;
        if (left <= 0) {
            return -1;
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        int n;
        if (early.hasRemaining()) {
            int k = (int) Math.min(Math.min(early.remaining(), dst.remaining()), left);
            dst.put(dst.position(), early, early.position(), k);
            dst.position(dst.position() + k);
            early.position(early.position() + k);
            n = k;
        } else {
            int limit = dst.limit();
            if (dst.remaining() > left) {
                dst.limit(dst.position() + (int) left);
            }
            try {
                n = channel.read(dst);
            } catch (ClosedChannelException e) {
                throw watch.explain(e);
            } finally {
                dst.limit(limit);
            }
            if (n < 0) {
                throw new IOException("the connection closed after " + bodyRead + " of " + contentLength
                        + " bytes: the answer was cut off");
            }
        }
        bodyRead += n;
        watch.progress();
        return n;
    }

    /**
     * An error answer's body (a short JSON object): by its {@code Content-Length}, or up to the
     * connection's end when it has none (chunked bodies are not decoded: only the status is used then).
     */
    byte[] errorBody() throws IOException {
        if (headers.containsKey("transfer-encoding")) {
            return new byte[0];
        }
        long want = contentLength >= 0 ? Math.min(contentLength, MAX_ERROR_BODY_BYTES) : MAX_ERROR_BODY_BYTES;
        ByteBuffer b = ByteBuffer.allocate((int) want);
        b.put(early.slice(early.position(), Math.min(early.remaining(), b.remaining())));
        while (b.hasRemaining() && channel.read(b) >= 0) {
            watch.progress();
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    @Override
    public void close() throws IOException {
        watchdog.shutdownNow();
        channel.close();
    }
}
