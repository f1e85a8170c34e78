package io.trailproof.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The live stream under batch ingest (performance): the batch ingest scenario of
 * {@link LoadGenerator} (8 clients, batches of 1,000 events of about 500 bytes) run twice on one
 * server, first with no subscriber, then with {@code S} SSE subscribers that each receive every
 * event. It prints the ingest rate of both runs and their ratio (goal at least 0.8), the server CPU
 * per event of both, and the delivery latency from the batch's 201 to a subscriber's receipt of
 * the event, p50 and p99 over every subscriber and every 100th event (goal p99 at most 100 ms).
 * Every subscriber must receive every event of the second run, once and in order, or the run fails.
 *
 * <p>With {@code --rate R} both runs post at most R events/s (each batch waits for its turn in a
 * steady schedule) instead of as fast as the server answers: the delivery latency of a service that
 * is not saturated, which is what a fleet sending a steady stream sees; the ratio then only says
 * whether the server kept the rate.
 *
 * <p>Usage: {@code StreamBench DIST_DIR [--events N] [--subscribers S] [--rate R]} (defaults 100,000,
 * 100 and unlimited).
 */
public final class StreamBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1000;
    private static final int SAMPLE_EVERY = 100;

    private final int port;
    /** Events per second the ingest clients post at most; 0 = as fast as answered. */
    private double rate;
    private final ThreadLocal<PlainHttp> connection = new ThreadLocal<>();

    private StreamBench(int port) {
        this.port = port;
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--subscribers", "--rate");
        Path dist = a.dist();
        long events = a.longOption("--events", 100_000);
        int subscribers = a.intOption("--subscribers", 100);
        double rate = a.doubleOption("--rate", 0);
        Path data = Files.createTempDirectory("trailproof-stream-bench");
        String opts = ("-Xmx1g " + System.getProperty("bench.serverOpts", "")).trim();
        Table table = new Table();
        try (ServerUnderTest server = ServerUnderTest.start(dist, data, opts)) {
            StreamBench b = new StreamBench(server.port);
            long warmUp = Math.min(events, 50_000);
            b.ingest(warmUp, 0, null);
            b.rate = rate;
            ServerProbe.awaitQuiet(server.pid());

            long[] c0 = ServerProbe.cpuNanos(server.pid());
            double alone = b.ingest(events, warmUp, null);
            long[] c1 = ServerProbe.cpuNanos(server.pid());
            ServerProbe.awaitQuiet(server.pid());

            long from = warmUp + events;
            List<Subscriber> subs = new ArrayList<>();
            for (int i = 0; i < subscribers; i++) {
                subs.add(Subscriber.open(server.port, from, events));
            }
            Thread.sleep(500); // every stream registered with the dispatcher
            long[] acks = new long[(int) (events / SAMPLE_EVERY) + 1];
            long[] c2 = ServerProbe.cpuNanos(server.pid());
            double watched = b.ingest(events, from, (index, nanos) -> {
                if ((index - from) % SAMPLE_EVERY == 0) {
                    acks[(int) ((index - from) / SAMPLE_EVERY)] = nanos;
                }
            });
            long[] c3 = ServerProbe.cpuNanos(server.pid());
            List<Long> latencies = new ArrayList<>();
            long overflows = 0;
            for (Subscriber s : subs) {
                s.await(events, 300);
                overflows += s.overflows.get();
                for (int k = 0; k < acks.length; k++) {
                    if (s.received[k] != 0 && acks[k] != 0) {
                        latencies.add(s.received[k] - acks[k]);
                    }
                }
                s.close();
            }
            long[] lat = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            double p50 = lat.length == 0 ? Double.NaN : Math.max(0, lat[lat.length / 2]) / 1e6;
            double p99 = lat.length == 0 ? Double.NaN : Math.max(0, lat[(int) Math.min(lat.length - 1, lat.length * 0.99)]) / 1e6;
            double ratio = watched / alone;
            if (rate > 0) {
                table.add("ingest clients' rate limit (--rate)", rate, "events/s", "", true, 0, "");
            }
            table.add("batch ingest, no subscriber (" + events + " events)", alone, "events/s", "", true, 0, "");
            table.add("batch ingest, " + subscribers + " SSE subscribers of every event", watched, "events/s", "", true, 0, "");
            table.add("ingest rate ratio, with / without subscribers", ratio, "", ">= 0.8", ratio >= 0.8, 0, "");
            table.add("server CPU per event, no subscriber", (c1[0] - c0[0]) / 1e3 / events, "us", "", true, 0, "");
            table.add("server CPU per event, " + subscribers + " subscribers", (c3[0] - c2[0]) / 1e3 / events, "us", "",
                    true, 0, "");
            table.add("client CPU per event (ingest clients + subscribers), " + subscribers + " subscribers",
                    (c3[1] - c2[1]) / 1e3 / events, "us", "", true, 0, "");
            table.add("streams ended by the overflow rule (then resumed)", overflows, "", "0", overflows == 0, 0, "");
            table.add("delivery latency 201 -> receipt p50", p50, "ms", "", true, 0, "");
            table.add("delivery latency 201 -> receipt p99", p99, "ms", "<= 100", p99 <= 100, 0, "");
            System.err.printf(Locale.ROOT, "%d latency samples; a negative one (event received before its 201) counts "
                    + "as 0%n", lat.length);
        }
        System.out.println();
        System.out.println(table.render(LoadGenerator.machine()));
        System.exit(0);
    }

    @FunctionalInterface
    interface AckListener {
        void acked(long logIndex, long nanos);
    }

    /** Batch ingest of {@code events} events; tells {@code acks} the 201 time of every event. Returns events/s. */
    private double ingest(long events, long offset, AckListener acks) throws Exception {
        long batches = (events + BATCH - 1) / BATCH;
        AtomicLong next = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        long t0 = System.nanoTime();
        List<Future<?>> fs = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            fs.add(pool.submit(() -> {
                long b;
                while ((b = next.getAndIncrement()) < batches) {
                    if (rate > 0) {
                        long due = t0 + (long) (b * BATCH * 1e9 / rate);
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            TimeUnit.NANOSECONDS.sleep(wait);
                        }
                    }
                    StringBuilder body = new StringBuilder(BATCH * 520).append('[');
                    for (int i = 0; i < BATCH; i++) {
                        long n = offset + b * BATCH + i;
                        body.append(i == 0 ? "" : ",").append(SampleEvents.event(n, LoadGenerator.agentFor(n)));
                    }
                    PlainHttp.Response resp = connection().post("/v1/batch",
                            body.append(']').toString().getBytes(StandardCharsets.UTF_8));
                    long acked = System.nanoTime();
                    if (resp.status() != 201) {
                        throw new IllegalStateException("batch answered " + resp.status() + ": " + resp.text());
                    }
                    if (acks != null) {
                        // A batch is one group: its events have consecutive log indexes.
                        long first = firstLogIndex(resp.body());
                        for (long i = first; i < first + BATCH; i++) {
                            acks.acked(i, acked);
                        }
                    }
                }
                connection().close();
                connection.remove();
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        pool.shutdown();
        return events / ((System.nanoTime() - t0) / 1e9);
    }

    private PlainHttp connection() throws IOException {
        PlainHttp c = connection.get();
        if (c == null) {
            c = new PlainHttp(port);
            connection.set(c);
        }
        return c;
    }

    /** The {@code log_index} of the first item of a batch answer, found without parsing the whole body. */
    static long firstLogIndex(byte[] body) {
        String s = new String(body, 0, Math.min(body.length, 4096), StandardCharsets.UTF_8);
        int at = s.indexOf("\"log_index\":");
        int end = at + 12;
        while (end < s.length() && Character.isDigit(s.charAt(end))) {
            end++;
        }
        return Long.parseLong(s.substring(at + 12, end));
    }

    /**
     * One SSE subscriber on a raw HTTP/1.0 connection (no chunked coding, so the body is the SSE text
     * itself). Its thread scans for {@code id:} lines only, checks they are consecutive, and notes the
     * receipt time of every 100th event. When the server ends its stream (the overflow rule: it fell
     * more than {@code stream.max-buffered-events} behind), it reconnects from the next event it
     * expects, as a real client does, and counts the overflow.
     */
    static final class Subscriber implements AutoCloseable {
        final long[] received;
        final AtomicLong overflows = new AtomicLong();
        private final int port;
        private final long from;
        private final long events;
        private final AtomicLong count = new AtomicLong();
        private final ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        private volatile Socket socket;
        private volatile boolean closed;
        private long expected;

        private Subscriber(int port, long from, long events) throws IOException {
            this.port = port;
            this.from = from;
            this.events = events;
            this.expected = from;
            this.received = new long[(int) (events / SAMPLE_EVERY) + 1];
            connect(from);
            Thread.ofPlatform().daemon().start(this::run);
        }

        static Subscriber open(int port, long from, long events) throws IOException {
            return new Subscriber(port, from, events);
        }

        private void connect(long at) throws IOException {
            Socket s = new Socket();
            s.setReceiveBufferSize(1 << 20);
            s.connect(new InetSocketAddress("127.0.0.1", port));
            OutputStream out = s.getOutputStream();
            out.write(("GET /v1/stream?from=" + at + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket = s;
        }

        private void run() {
            while (!closed) {
                read(socket);
                if (closed || count.get() >= events) {
                    return;
                }
                overflows.incrementAndGet();
                try {
                    connect(expected);
                } catch (IOException e) {
                    problems.add("reconnect failed: " + e);
                    return;
                }
            }
        }

        private void read(Socket s) {
            byte[] buf = new byte[1 << 16];
            byte[] idPrefix = "\nid: ".getBytes(StandardCharsets.US_ASCII);
            int matched = 0;
            long number = -1;
            try (InputStream in = s.getInputStream()) {
                for (int n; (n = in.read(buf)) > 0; ) {
                    long now = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        byte c = buf[i];
                        if (number >= 0) {
                            if (c >= '0' && c <= '9') {
                                number = number * 10 + (c - '0');
                                continue;
                            }
                            if (number != expected) {
                                problems.add("expected id " + expected + ", got " + number);
                            }
                            expected = number + 1;
                            long k = number - from;
                            if (k % SAMPLE_EVERY == 0 && k / SAMPLE_EVERY < received.length) {
                                received[(int) (k / SAMPLE_EVERY)] = now;
                            }
                            count.incrementAndGet();
                            number = -1;
                            matched = c == '\n' ? 1 : 0;
                            continue;
                        }
                        if (c == idPrefix[matched]) {
                            matched++;
                            if (matched == idPrefix.length) {
                                number = 0;
                                matched = 0;
                            }
                        } else {
                            matched = c == '\n' ? 1 : 0;
                        }
                    }
                }
            } catch (IOException e) {
                if (!closed) {
                    problems.add("read failed: " + e);
                }
            }
        }

        void await(long events, int seconds) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (count.get() < events && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            if (count.get() != events || !problems.isEmpty()) {
                throw new IllegalStateException("a subscriber received " + count.get() + " of " + events + " events; "
                        + Arrays.toString(problems.stream().limit(5).toArray()));
            }
        }

        @Override
        public void close() throws IOException {
            closed = true;
            socket.close();
        }
    }
}
