package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Verifying one agent's chain ({@code GET /v1/verify}) in a large on-disk ledger, read from the page
 * cache (the ledger is written in the setup, then verified once before measuring). The log holds
 * {@code logEvents} events of about 500 bytes; two agents are spread evenly through it:
 * {@code spread-agent}, one event in 50 (20,000 events in 1,000,000), and {@code sparse-agent}, one in
 * 500 (2,000 events in 1,000,000: the spacing of an agent of 20,000 events in a log of 10,000,000,
 * whose time per event it measures). The other events go round 499 agents, as in
 * {@code bench/run-scale}. Beside them, in the same run, the floor: SHA-256 over the same agent's
 * stored bytes, already in memory. At the end of each trial it prints the median CPU time of the
 * measured verifications on their thread, the figure that moves least when other work shares the
 * machine.
 *
 * <p>Writing the ledger takes one to two minutes per million events on this machine. With
 * {@code -Dbench.verify.dir=DIR} the ledger is kept in {@code DIR} and reused by later runs, of this
 * build or another one: the way to compare two builds over the same bytes. Without it, a temporary
 * directory is removed at the end.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class VerifyAgentBenchmarks {

    private static final int SPREAD_EVERY = 50;
    private static final int SPARSE_EVERY = 500;
    private static final int OTHER_AGENTS = 499;
    private static final int BATCH = 1_000;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    @Param("1000000")
    public long logEvents;

    @Param({"spread-agent", "sparse-agent"})
    public String agent;

    private Path dir;
    private boolean temporary;
    private Ledger ledger;
    private final List<byte[]> agentPayloads = new ArrayList<>();
    private MessageDigest sha;
    private boolean measuring;
    private final List<Long> cpuNanos = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        String kept = System.getProperty("bench.verify.dir");
        temporary = kept == null;
        dir = temporary ? Files.createTempDirectory("verify-bench")
                : Path.of(kept).resolve(logEvents + "-events");
        Files.createDirectories(dir);
        ledger = Ledger.open(dir, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom());
        if (ledger.size() == 0) {
            fill();
        } else if (ledger.size() != logEvents) {
            throw new IllegalStateException(dir + " holds " + ledger.size() + " events, not " + logEvents);
        }
        long expected = logEvents / (agent.equals("spread-agent") ? SPREAD_EVERY : SPARSE_EVERY);
        ChainReport warm = ledger.verify(agent).orElseThrow();
        if (!warm.valid() || warm.eventsVerified() != expected) {
            throw new IllegalStateException("the agent does not verify: " + warm);
        }
        for (long p : ledger.agentPositions(agent)) {
            ledger.scan(p, p + 1, (index, payload) -> agentPayloads.add(payload));
        }
        sha = MessageDigest.getInstance("SHA-256");
    }

    private void fill() throws Exception {
        List<ObjectNode> batch = new ArrayList<>(BATCH);
        for (long i = 0; i < logEvents; i++) {
            String owner = i % SPREAD_EVERY == SPREAD_EVERY / 2 ? "spread-agent"
                    : i % SPARSE_EVERY == 3 ? "sparse-agent" : "agent-" + (i % OTHER_AGENTS);
            batch.add(EventValidator.validate((ObjectNode) JSON.readTree(SampleEvents.event(i, owner))));
            if (batch.size() == BATCH) {
                ledger.append(batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            ledger.append(batch);
        }
    }

    @Setup(Level.Iteration)
    public void iteration(IterationParams params) {
        measuring = params.getType() == IterationType.MEASUREMENT;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (!cpuNanos.isEmpty()) {
            List<Long> sorted = cpuNanos.stream().sorted().toList();
            System.out.printf("%n%s: thread CPU per verify, median of %d: %.1f ms (min %.1f, max %.1f)%n", agent,
                    sorted.size(), sorted.get(sorted.size() / 2) / 1e6, sorted.get(0) / 1e6,
                    sorted.get(sorted.size() - 1) / 1e6);
        }
        ledger.close();
        if (temporary) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** {@code GET /v1/verify}'s work: the agent's chain re-verified from storage, every leaf checked. */
    @Benchmark
    public ChainReport verifyAgent() throws IOException {
        long cpu = THREADS.getCurrentThreadCpuTime();
        ChainReport report = ledger.verify(agent).orElseThrow();
        if (measuring) {
            cpuNanos.add(THREADS.getCurrentThreadCpuTime() - cpu);
        }
        return report;
    }

    /** Baseline: SHA-256 over every stored byte of the agent's events, already in memory. */
    @Benchmark
    public void baselineSha256(Blackhole bh) {
        for (byte[] p : agentPayloads) {
            bh.consume(sha.digest(p));
        }
    }
}
