package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.policy.PolicyEventReader;
import io.trailproof.export.EvidencePackageWriter;
import io.trailproof.ledger.ChainSlice;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Reading stored events without building a tree, per event: the intact check of a chain
 * verification, the policy reader, and a whole evidence package written in memory (one agent's
 * events, their proofs; the log read from the page cache). Each beside two baselines over the
 * same bytes in the same run: SHA-256 (the floor: every byte looked at once) and Jackson's tree
 * (what a general parser costs). One event in four has non-ASCII text and escapes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class ScanBenchmarks {

    private static final int EVENTS = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();

    private Path dir;
    private Ledger ledger;
    private ChainSlice slice;
    private final List<byte[]> payloads = new ArrayList<>();
    private PolicyEventReader reader;
    private MessageDigest sha;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dir = Files.createTempDirectory("scan-bench");
        ledger = Ledger.open(dir, LedgerOptions.defaults(), Clock.systemUTC(), new SecureRandom());
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            ObjectNode e = (ObjectNode) JSON.readTree(SampleEvents.event(i, "bench-agent"));
            if (i % 4 == 0) {
                ((ObjectNode) e.get("action_output")).put("summary",
                        "le chiffre d'affaires a crû de 4 % en \"Europe\" €\nrésumé ✓ 😀 \\ fin " + i);
            }
            batch.add(EventValidator.validate(e));
        }
        ledger.append(batch);
        slice = ledger.slice("bench-agent", null, null).orElseThrow();
        ledger.scan(0, ledger.size(), (index, payload) -> payloads.add(payload.clone()));
        reader = new PolicyEventReader(Set.of());
        sha = MessageDigest.getInstance("SHA-256");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        ledger.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** The chain check's fast path: one pass, the hash over the bytes without hash and log_index. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void intactCheck(Blackhole bh) {
        for (byte[] p : payloads) {
            bh.consume(IntactEvent.check(p));
        }
    }

    /** The policy check's reading of an event's facts. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void policyRead(Blackhole bh) {
        for (byte[] p : payloads) {
            bh.consume(reader.read(p));
        }
    }

    /** A whole evidence package of the agent's events, written to nowhere. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void exportPackage() throws IOException {
        EvidencePackageWriter.write(slice, List.of(), null, null, OutputStream.nullOutputStream());
    }

    /** Baseline: SHA-256 over every byte of each event. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void baselineSha256(Blackhole bh) {
        for (byte[] p : payloads) {
            bh.consume(sha.digest(p));
        }
    }

    /** Baseline: Jackson's tree of each event. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void baselineJacksonTree(Blackhole bh) throws IOException {
        for (byte[] p : payloads) {
            bh.consume(JSON.readTree(p));
        }
    }
}
