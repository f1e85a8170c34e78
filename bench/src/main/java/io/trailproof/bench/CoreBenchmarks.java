package io.trailproof.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;
import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/** The per-event CPU work of the core: canonical form and hash, Merkle append, proof generation. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class CoreBenchmarks {

    static final ObjectMapper JSON = new ObjectMapper();

    private ObjectNode clientFields;
    private byte[] eventBytes;
    private InMemorySubtreeHashes growing;
    private InMemorySubtreeHashes million;
    private SplittableRandom random;
    private long sequence;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        eventBytes = SampleEvents.event(0, "bench-agent").getBytes(StandardCharsets.UTF_8);
        clientFields = (ObjectNode) StrictJson.parse(eventBytes, 64);
        growing = new InMemorySubtreeHashes();
        million = new InMemorySubtreeHashes();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < 1_000_000; i++) {
            million.append(Rfc9162.leafHash(sha.digest(Long.toString(i).getBytes(StandardCharsets.UTF_8))));
        }
        random = new SplittableRandom(7);
    }

    /** Parse + canonical form + SHA-256 + stored payload of one ~500-byte event (what the sequencer does). */
    @Benchmark
    public StoredEvent sealOneEvent() throws Exception {
        sequence++;
        return StoredEvent.seal(clientFields, "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00", "2026-11-22T00:00:00.000000Z",
                sequence, "0".repeat(64), sequence);
    }

    /** Canonical form and SHA-256 only. */
    @Benchmark
    public byte[] canonicalAndHash() throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(Rfc8785.canonicalize(clientFields));
    }

    /** Strict parse of the request bytes of one event. */
    @Benchmark
    public Object strictParse() throws Exception {
        return StrictJson.parse(eventBytes, 64);
    }

    @Benchmark
    public long merkleAppend() {
        growing.append(Rfc9162.leafHash(new byte[32]));
        return growing.size();
    }

    @Benchmark
    public List<byte[]> inclusionProofAtOneMillion() {
        return MerkleTree.inclusionProof(million, random.nextLong(1_000_000), 1_000_000);
    }

    @Benchmark
    public List<byte[]> consistencyProofAtOneMillion() {
        return MerkleTree.consistencyProof(million, 1 + random.nextLong(999_999), 1_000_000);
    }

    @Benchmark
    public byte[] rootAtOneMillion() {
        return MerkleTree.root(million, 1_000_000);
    }
}
