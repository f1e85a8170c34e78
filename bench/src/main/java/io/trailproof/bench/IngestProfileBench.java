package io.trailproof.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the server's CPU goes per batched event, beside Lucene alone indexing the same documents.
 *
 * <p>Starts the packaged server (and, with {@code --baseline DIST}, a second build beside it), each
 * at {@code -Xmx1g} with a JFR recording of CPU-time samples ({@code jdk.CPUTimeSample}, every 5 ms
 * of a thread's CPU time), warms each up with half the events (as many as {@link IndexingBench}'s
 * unmeasured first repetition below indexes), then runs the batch ingest
 * scenario of {@code bench/run} (8 clients, batches of 1,000 sample events of about 500 bytes) in
 * rounds alternating A B B A, {@code --events} per build in all. Each round's CPU is counted from
 * {@code /proc} until the server is idle again (so indexing that trails a round is charged to it),
 * per thread: the collector's and the JIT compiler's threads apart, the Java threads split by their
 * samples of the round (the stack of each sample decides its part, {@link #part}). Then, in the same
 * run, {@link IndexingBench} for each build in its own JVM: Lucene alone indexing the same sample
 * events with the service's own document layout and analysis, no HTTP, no log.
 *
 * <p>Usage: {@code IngestProfileBench [DIST] [--baseline DIST] [--events N]} (default 300,000).
 */
public final class IngestProfileBench {

    private static final int CLIENTS = 8;
    private static final int BATCH = 1_000;

    /** The parts, in the order of the table. */
    static final List<String> PARTS = List.of("HTTP (Undertow, body, answer)", "parse (strict JSON)", "validate",
            "seal (event object, service fields)", "canonicalize (RFC 8785)", "hash (SHA-256)", "sequence (ids, chains)",
            "append (log frames, write)", "force (fsync)", "Merkle (leaf hash, nodes)", "index (Lucene and follower)",
            "idempotency", "other followers (gate history, capture gaps, stream)", "other Java");

    private record Rule(Pattern frame, String part) {
    }

    /**
     * Matched against each frame from the leaf towards the root; the first frame that matches names the
     * part. JDK and Jackson frames match nothing (they count for the frame that called them), except the
     * force itself.
     */
    private static final List<Rule> RULES = List.of(
            rule("sun\\.nio\\.ch\\.(FileChannelImpl|UnixFileDispatcherImpl|FileDispatcherImpl)\\.(force|force0)",
                    "force (fsync)"),
            rule("io\\.trailproof\\.store\\.GroupCommit\\.force.*", "force (fsync)"),
            rule("io\\.trailproof\\.core\\.merkle\\..*", "Merkle (leaf hash, nodes)"),
            rule("io\\.trailproof\\.store\\.(Merkle|UpperLevel).*", "Merkle (leaf hash, nodes)"),
            rule("io\\.trailproof\\.ledger\\.(TreeAppends|LeafWindow).*", "Merkle (leaf hash, nodes)"),
            rule("io\\.trailproof\\.core\\.json\\.Rfc8785.*", "canonicalize (RFC 8785)"),
            rule("io\\.trailproof\\.core\\.event\\.EventHash.*", "hash (SHA-256)"),
            rule("io\\.trailproof\\.core\\.json\\.StrictJson.*", "parse (strict JSON)"),
            rule("io\\.trailproof\\.http\\.LedgerEndpoints\\.parse", "parse (strict JSON)"),
            rule("io\\.trailproof\\.core\\.event\\.EventValidator.*", "validate"),
            rule("io\\.trailproof\\.core\\.event\\.StoredEvent.*", "seal (event object, service fields)"),
            rule("io\\.trailproof\\.ledger\\.(Sequencer|AgentTable|AgentState|EventIds|Submission).*",
                    "sequence (ids, chains)"),
            rule("io\\.trailproof\\.core\\.event\\.UuidV7.*", "sequence (ids, chains)"),
            rule("io\\.trailproof\\.ledger\\.Dedupe.*", "idempotency"),
            rule("io\\.trailproof\\.http\\.(IdempotentRequests|RecordedAnswers).*", "idempotency"),
            rule("org\\.apache\\.lucene\\..*", "index (Lucene and follower)"),
            rule("io\\.trailproof\\.index\\..*", "index (Lucene and follower)"),
            rule("io\\.trailproof\\.(gate|capture|stream|core\\.capture|core\\.policy|core\\.gate)\\..*",
                    "other followers (gate history, capture gaps, stream)"),
            rule("io\\.trailproof\\.store\\..*", "append (log frames, write)"),
            rule("io\\.trailproof\\.ledger\\.(BatchAppends|Ledger)\\..*", "append (log frames, write)"),
            rule("io\\.undertow\\..*", "HTTP (Undertow, body, answer)"),
            rule("org\\.xnio\\..*", "HTTP (Undertow, body, answer)"),
            rule("io\\.trailproof\\.http\\..*", "HTTP (Undertow, body, answer)"));

    private static Rule rule(String regex, String part) {
        return new Rule(Pattern.compile(regex), part);
    }

    /** One build under test: its server, its JFR file, what its rounds cost. */
    private static final class Build {
        final String name;
        final Path dist;
        final Path jfr;
        ServerUnderTest server;
        long events;
        double seconds;
        final Map<String, Long> threadCpu = new LinkedHashMap<>();
        final List<Instant[]> windows = new ArrayList<>();
        double luceneMicros;

        Build(String name, Path dist, Path jfr) {
            this.name = name;
            this.dist = dist;
            this.jfr = jfr;
        }
    }

    public static void main(String[] args) throws Exception {
        BenchArgs a = BenchArgs.parse(args, List.of("--baseline", "--events"), Set.of());
        long events = a.longOption("--events", 300_000);
        Path work = Files.createTempDirectory("trailproof-ingest-profile");
        List<Build> builds = new ArrayList<>();
        builds.add(new Build("this build", a.dist().toAbsolutePath(), work.resolve("candidate.jfr")));
        Path baseline = a.pathOption("--baseline", null);
        if (baseline != null) {
            builds.add(new Build("baseline", baseline.toAbsolutePath(), work.resolve("baseline.jfr")));
        }
        AtomicLong next = new AtomicLong();
        try {
            for (Build b : builds) {
                b.server = ServerUnderTest.start(b.dist, work.resolve("data-" + builds.indexOf(b)),
                        "-Xmx1g -XX:StartFlightRecording=filename=" + b.jfr
                                + ",jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=5ms");
                // Warmed up with as many events as Lucene alone's unmeasured repetition (events / 2), so
                // that both figures are of code the JIT has compiled, as in a server that has run a while.
                ClosedLoopClients.ingestBatches(b.server.port, CLIENTS, events / 2, BATCH, next);
                ServerProbe.awaitQuiet(b.server.pid());
            }
            int[] order = {0, 1, 1, 0};
            int rounds = builds.size() == 1 ? 2 : 4;
            for (int r = 0; r < rounds; r++) {
                Build b = builds.get(builds.size() == 1 ? 0 : order[r]);
                long perRound = events / (rounds / builds.size());
                Map<String, Long> before = threadCpu(b.server.pid());
                Instant from = Instant.now();
                long t0 = System.nanoTime();
                b.events += ClosedLoopClients.ingestBatches(b.server.port, CLIENTS, perRound, BATCH, next);
                b.seconds += (System.nanoTime() - t0) / 1e9;
                ServerProbe.awaitQuiet(b.server.pid());
                b.windows.add(new Instant[] {from, Instant.now()});
                threadCpu(b.server.pid()).forEach((k, v) -> b.threadCpu.merge(k, v - before.getOrDefault(k, 0L), Long::sum));
                System.err.printf(Locale.ROOT, "round %d: %s%n", r, b.name);
            }
            for (Build b : builds) {
                b.server.close(); // a clean stop writes the recording
            }
            for (Build b : builds) {
                print(b);
            }
            // Lucene alone, in the same run, after the servers stopped (so that neither disturbs the other).
            for (Build b : builds) {
                b.luceneMicros = luceneAlone(b.dist, events / 2);
                double perEvent = b.threadCpu.values().stream().mapToLong(Long::longValue).sum() / 1e3 / b.events;
                System.out.printf(Locale.ROOT, "%s: server %.1f µs/event; Lucene alone, the same documents: %.1f µs/event;"
                        + " server / Lucene alone %.2f%n", b.name, perEvent, b.luceneMicros, perEvent / b.luceneMicros);
            }
        } finally {
            for (Build b : builds) {
                if (b.server != null) {
                    b.server.close();
                }
            }
            try (Stream<Path> s = Files.walk(work)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** CPU nanoseconds so far of each thread group of {@code pid}: collector, JIT, other JVM, Java. */
    static Map<String, Long> threadCpu(long pid) throws IOException {
        Map<String, Long> groups = new LinkedHashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long ns = (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
                    groups.merge(group(comm), ns, Long::sum);
                } catch (IOException | RuntimeException ended) {
                    // the thread ended meanwhile
                }
            }
        }
        return groups;
    }

    private static String group(String comm) {
        if (comm.startsWith("GC Thread") || comm.startsWith("G1 ") || comm.startsWith("VM Periodic")) {
            return "collector (G1 threads)";
        }
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) {
            return "JIT compiler";
        }
        if (comm.startsWith("VM Thread") || comm.startsWith("JFR") || comm.startsWith("Service Thread")
                || comm.startsWith("Monitor Deflati") || comm.startsWith("Common-Cleaner") || comm.equals("java")) {
            return "JVM (VM thread, JFR, ...)";
        }
        return "Java";
    }

    /** The part a CPU sample's stack belongs to. */
    static String part(List<RecordedFrame> frames) {
        for (RecordedFrame f : frames) {
            if (!f.isJavaFrame()) {
                continue;
            }
            String name = f.getMethod().getType().getName() + "." + f.getMethod().getName();
            for (Rule r : RULES) {
                if (r.frame().matcher(name).matches()) {
                    return r.part();
                }
            }
        }
        return "other Java";
    }

    private static void print(Build b) throws IOException {
        Map<String, Integer> samples = new LinkedHashMap<>();
        PARTS.forEach(p -> samples.put(p, 0));
        int total = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(b.jfr)) {
            if (!e.getEventType().getName().equals("jdk.CPUTimeSample") || e.getStackTrace() == null) {
                continue;
            }
            Instant t = e.getStartTime();
            if (b.windows.stream().noneMatch(w -> !t.isBefore(w[0]) && !t.isAfter(w[1]))) {
                continue;
            }
            samples.merge(part(e.getStackTrace().getFrames()), 1, Integer::sum);
            total++;
        }
        long all = b.threadCpu.values().stream().mapToLong(Long::longValue).sum();
        double perEvent = all / 1e3 / b.events;
        double java = b.threadCpu.getOrDefault("Java", 0L) / 1e3 / b.events;
        System.out.printf(Locale.ROOT, "%n%s (%s): %,d events in rounds, %,.0f events/s durable, server CPU %.1f µs/event"
                        + " (%,d CPU samples)%n", b.name, b.dist, b.events, b.events / b.seconds, perEvent, total);
        System.out.printf(Locale.ROOT, "| %-52s | %8s | %6s |%n", "where", "µs/event", "share");
        System.out.printf(Locale.ROOT, "|%s|%s|%s|%n", "-".repeat(54), "-".repeat(10), "-".repeat(8));
        for (String p : PARTS) {
            double us = total == 0 ? 0 : java * samples.get(p) / total;
            System.out.printf(Locale.ROOT, "| %-52s | %8.1f | %5.1f%% |%n", p, us, 100 * us / perEvent);
        }
        for (Map.Entry<String, Long> g : b.threadCpu.entrySet()) {
            if (!g.getKey().equals("Java")) {
                double us = g.getValue() / 1e3 / b.events;
                System.out.printf(Locale.ROOT, "| %-52s | %8.1f | %5.1f%% |%n", g.getKey(), us, 100 * us / perEvent);
            }
        }
        System.out.printf(Locale.ROOT, "| %-52s | %8.1f | %5.1f%% |%n", "total", perEvent, 100.0);
    }

    private static final Pattern MEDIAN = Pattern.compile("indexing median: [\\d,]+ events/s, CPU ([\\d.]+) \\S+/event");

    /** {@link IndexingBench} on {@code dist}'s classes in a JVM of its own; its median CPU per event. */
    private static double luceneAlone(Path dist, long events) throws Exception {
        String self = System.getProperty("java.class.path");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx1g", "-cp", dist.resolve("lib") + "/*:" + self,
                IndexingBench.class.getName(), "--events", Long.toString(events), "--repetitions", "4")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Matcher m = MEDIAN.matcher(out);
        if (!m.find()) {
            throw new IllegalStateException("IndexingBench printed no median:\n" + out);
        }
        return Double.parseDouble(m.group(1));
    }
}
