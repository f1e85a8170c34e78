package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.LedgerViews.ChainReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start does not read the sealed segments of the log (src/site/storage.md#what-a-start-reads), so a
 * frame damaged in one after it was sealed is not found by the start: this checks that the
 * verification of the chain holding it finds it, naming the file and offset, and that the other
 * chains still verify.
 */
class SealedSegmentDamageTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 14, 50), Clock.systemUTC(), new Random(3));
    }

    @Test
    void aFrameDamagedInASealedSegmentAfterItWasSealedIsFoundByTheVerificationOfItsChain() throws Exception {
        try (Ledger ledger = open()) {
            for (int b = 0; b < 40; b++) {
                List<ObjectNode> batch = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    batch.add((ObjectNode) JSON.readTree("{\"agent_id\":\"agent-" + (i % 2) + "\",\"action_type\":\"TOOL_CALL\","
                            + "\"action_name\":\"op" + b + "\",\"metadata\":{\"n\":" + (b * 10 + i) + "}}"));
                }
                ledger.append(batch);
            }
        }
        Path first;
        try (Stream<Path> files = Files.list(dir.resolve("log"))) {
            List<Path> segments = files.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
            assertThat(segments).hasSizeGreaterThan(3);
            first = segments.get(0);
        }
        assertThat(dir.resolve("log").resolve(first.getFileName().toString().replace(".seg", ".sealed"))).exists();
        byte[] b = Files.readAllBytes(first);
        b[8 + 20] ^= 0x20;   // inside the first event's JSON (agent-0's first event), same length
        Files.write(first, b);
        try (Ledger ledger = open()) {
            assertThat(ledger.size()).isEqualTo(400);
            ChainReport damaged = ledger.verify("agent-0").orElseThrow();
            assertThat(damaged.valid()).isFalse();
            assertThat(damaged.failure().orElseThrow().toString()).contains(first.toString()).contains("offset 0");
            assertThat(ledger.verify("agent-1").orElseThrow().valid()).isTrue();
        }
    }
}
