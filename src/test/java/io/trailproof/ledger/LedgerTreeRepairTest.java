package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.merkle.Reference;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tree repair through the ledger: a flipped byte in a stored tree level does not reach a served
 * root after a restart. Expected roots are recomputed from the events' hashes by {@link Reference}.
 */
class LedgerTreeRepairTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS = 1100;

    @TempDir
    Path dir;

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 16, 7), Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"),
                ZoneOffset.UTC), new Random(1));
    }

    private static void flipByte(Path file, long offset) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 1)).rewind();
            ch.write(b, offset);
        }
    }

    @Test
    void aFlippedByteInATreeLevelIsNotServedAfterARestart() throws Exception {
        List<byte[]> eventHashes = new ArrayList<>();
        try (Ledger ledger = open()) {
            for (int i = 0; i < EVENTS; i += 100) {
                List<ObjectNode> batch = new ArrayList<>();
                for (int j = 0; j < 100; j++) {
                    batch.add(JSON.createObjectNode().put("agent_id", "agent-" + (j % 3)).put("n", i + j));
                }
                for (AppendOutcome outcome : ledger.append(batch)) {
                    eventHashes.add(outcome.event().hashBytes());
                }
            }
        }
        // Level 5, node 16 (leaves 512..543): part of every root from 544 to 575 leaves.
        flipByte(dir.resolve("merkle").resolve("level-05.hash"), 16 * 32 + 5);
        // Level 10, the only node: part of every root from 1024 leaves on.
        flipByte(dir.resolve("merkle").resolve("level-10.hash"), 31);
        try (Ledger ledger = open()) {
            assertThat(ledger.size()).isEqualTo(EVENTS);
            // Every size whose root uses a damaged node, and a sample of the others.
            for (int s = 1; s <= EVENTS; s += (s >= 540 && s <= 580) || s >= 1020 ? 1 : 29) {
                assertThat(ledger.root(s)).as("root(%d)", s).isEqualTo(Reference.mth(eventHashes.subList(0, s)));
            }
            RootRecomputation fromLog = ledger.recomputeRoot(EVENTS);
            assertThat(fromLog.root()).isEqualTo(ledger.root(EVENTS));
            assertThat(fromLog.firstAlteredIndex()).isEqualTo(-1);
        }
    }
}
