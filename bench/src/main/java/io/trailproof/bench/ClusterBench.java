package io.trailproof.bench;

import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cluster mode, in one run: batch ingest into the embedded mode, then through a
 * 3-broker Kafka cluster (1 controller + 3 brokers, KRaft, in this JVM) with one trailproof node and
 * with three (the clients spread over them), then the apply rate of a fresh node catching up from
 * offset 0. Every server is the packaged distribution in its own process.
 *
 * <pre>bench/run-cluster [--events N] [--batch B] [--clients C]   (default 100,000, 1,000, 4)</pre>
 *
 * The machines here are shared: compare the rows of one run, not runs.
 */
public final class ClusterBench {

    private static final Pattern APPLIED = Pattern.compile("\"applied_size\":(\\d+)");

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, "--events", "--batch", "--clients");
        Path dist = a.dist();
        long events = a.longOption("--events", 100_000);
        int batch = a.intOption("--batch", 1000);
        int clients = a.intOption("--clients", 4);
        Path work = Files.createTempDirectory("trailproof-cluster-bench");
        String opts = "-Xmx1g";
        List<String> rows = new ArrayList<>();

        try (ServerUnderTest embedded = ServerUnderTest.start(dist, work.resolve("embedded"), opts)) {
            rows.add(row("embedded, 1 node", events, ingest(List.of(embedded.port), events, batch, clients)));
        }

        KafkaClusterTestKit kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(false)
                .setNumControllerNodes(1).setNumBrokerNodes(3).build()).build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
        try {
            try (ServerUnderTest one = node(dist, work, "solo", "one", kafka.bootstrapServers(), opts)) {
                rows.add(row("kafka, 1 node", events, ingest(List.of(one.port), events, batch, clients)));
            }
            List<ServerUnderTest> three = new ArrayList<>();
            try {
                for (String id : List.of("a", "b", "c")) {
                    three.add(node(dist, work, id, "three", kafka.bootstrapServers(), opts));
                }
                List<Integer> ports = three.stream().map(s -> s.port).toList();
                long nanos = ingest(ports, events, batch, clients);
                rows.add(row("kafka, 3 nodes (writes spread)", events, nanos));
                long t0 = System.nanoTime();
                for (int port : ports) {
                    awaitApplied(port, events);
                }
                rows.add(String.format(Locale.ROOT, "%-34s all 3 nodes at %,d events %.1f s after the last ack",
                        "kafka, 3 nodes: convergence", events, (System.nanoTime() - t0) / 1e9));
                long c0 = System.nanoTime();
                try (ServerUnderTest fresh = node(dist, work, "late", "three", kafka.bootstrapServers(), opts)) {
                    awaitApplied(fresh.port, events);
                    double s = (System.nanoTime() - c0) / 1e9;
                    rows.add(String.format(Locale.ROOT, "%-34s %,12.0f events/s (%,d events from offset 0 in %.1f s, "
                            + "process start included)", "catch-up of a fresh node", events / s, events, s));
                }
            } finally {
                for (ServerUnderTest s : three) {
                    s.close();
                }
            }
        } finally {
            kafka.close();
        }
        System.out.println();
        System.out.println("cluster mode: " + events + " events of ~500 bytes, batches of " + batch + ", "
                + clients + " clients");
        rows.forEach(System.out::println);
    }

    private static ServerUnderTest node(Path dist, Path work, String id, String topic, String servers, String opts)
            throws Exception {
        Path config = work.resolve(id + ".properties");
        Files.writeString(config, "cluster.mode=kafka\ncluster.bootstrap-servers=" + servers + "\ncluster.node-id=" + id
                + "\ncluster.topic=" + topic + "\ncluster.write-timeout=PT60S\ncluster.read-wait=PT60S\n");
        return ServerUnderTest.start(dist, work.resolve(id), opts, "--config", config.toString());
    }

    /** Posts {@code events} in keyed batches over {@code clients} connections spread over the ports; nanoseconds to the last ack. */
    private static long ingest(List<Integer> ports, long events, int batch, int clients) throws Exception {
        long batches = (events + batch - 1) / batch;
        AtomicLong next = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long t0 = System.nanoTime();
        List<Future<?>> work = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            int port = ports.get(c % ports.size());
            work.add(pool.submit(() -> {
                try (PlainHttp http = new PlainHttp(port)) {
                    for (long b = next.getAndIncrement(); b < batches; b = next.getAndIncrement()) {
                        StringBuilder body = new StringBuilder("[");
                        for (int i = 0; i < batch && b * batch + i < events; i++) {
                            body.append(i == 0 ? "" : ",").append(SampleEvents.event(b * batch + i, "agent-" + (b % 16)));
                        }
                        PlainHttp.Response r = http.post("/v1/batch", body.append(']').toString()
                                .getBytes(StandardCharsets.UTF_8), "Idempotency-Key: bench-" + b + "\r\n");
                        if (r.status() != 201) {
                            throw new IllegalStateException("batch " + b + ": " + r.status() + " "
                                    + new String(r.body(), StandardCharsets.UTF_8));
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : work) {
            f.get();
        }
        pool.shutdown();
        return System.nanoTime() - t0;
    }

    private static void awaitApplied(int port, long size) throws Exception {
        try (PlainHttp http = new PlainHttp(port)) {
            while (true) {
                Matcher m = APPLIED.matcher(new String(http.get("/v1/cluster").body(), StandardCharsets.UTF_8));
                if (m.find() && Long.parseLong(m.group(1)) >= size) {
                    return;
                }
                Thread.sleep(100);
            }
        }
    }

    private static String row(String name, long events, long nanos) {
        double s = nanos / 1e9;
        return String.format(Locale.ROOT, "%-34s %,12.0f events/s (%.1f s)", name, events / s, s);
    }
}
