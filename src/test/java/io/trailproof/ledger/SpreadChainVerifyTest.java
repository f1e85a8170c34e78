package io.trailproof.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.chain.ChainFailure;
import io.trailproof.ledger.LedgerViews.ChainReport;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verifying chains spread through the log, on every read path of the walk: frames read apart (an
 * agent with one event in 41 or in 151, about 16 or 60 KB apart) or together (one event in 2, other
 * agents' frames between them in the same read), leaves read apart or a window at a time, frames at
 * segment boundaries (segments of 32 KB) and in segments rewritten by an erasure. A chain verifies
 * exactly when its own stored events and leaves are intact: one bit changed in any of them is found,
 * and one changed in a frame another agent's read passes over is not blamed on that agent.
 */
class SpreadChainVerifyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS = 1500;

    @TempDir
    Path dir;

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(1 << 15, 500), Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"),
                ZoneOffset.UTC), new Random(1));
    }

    private static String owner(int i) {
        if (i % 151 == 7) {
            return "sparse";
        }
        if (i % 41 == 5) {
            return "spread";
        }
        return i % 2 == 0 ? "dense" : "other-" + (i % 5);
    }

    private static void fill(Ledger ledger) throws Exception {
        Random random = new Random(2);
        for (int i = 0; i < EVENTS; i += 100) {
            List<ObjectNode> batch = new ArrayList<>();
            for (int j = i; j < i + 100; j++) {
                ObjectNode e = JSON.createObjectNode().put("agent_id", owner(j));
                e.putObject("action_input").put("text", "x".repeat(200 + random.nextInt(300)) + " " + j);
                batch.add(e);
            }
            ledger.append(batch);
        }
    }

    private static void verifiesWhole(Ledger ledger, String agent, long erased) throws Exception {
        ChainReport r = ledger.verify(agent).orElseThrow();
        assertThat(r.failure()).as(agent).isEmpty();
        assertThat(r.eventsVerified()).as(agent).isEqualTo(ledger.agentPositions(agent).length);
        assertThat(r.erased()).as(agent).isEqualTo(erased);
    }

    private static ChainFailure.Kind failure(Ledger ledger, String agent) throws Exception {
        return ledger.verify(agent).orElseThrow().failure().orElseThrow().kind();
    }

    private static void flipBit(Path file, long offset) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte) (b.get(0) ^ 4)).rewind();
            ch.write(b, offset);
        }
    }

    /** Flips one bit in the middle of the stored frame of the event at {@code logIndex}, under the open ledger. */
    private void flipInFrame(Ledger ledger, long logIndex) throws Exception {
        byte[] payload = ledger.payloadAt(logIndex);
        List<Path> segments;
        try (Stream<Path> files = Files.list(dir.resolve("log"))) {
            segments = files.filter(f -> f.toString().endsWith(".seg")).sorted().toList();
        }
        for (Path segment : segments) {
            byte[] bytes = Files.readAllBytes(segment);
            for (int at = 0; at + payload.length <= bytes.length; at++) {
                if (Arrays.equals(bytes, at, at + payload.length, payload, 0, payload.length)) {
                    flipBit(segment, at + payload.length / 2);
                    return;
                }
            }
        }
        throw new AssertionError("the frame of event " + logIndex + " is in no segment");
    }

    @Test
    void spreadChainsVerifyAcrossSegmentsAndErasedEvents() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            try (Stream<Path> files = Files.list(dir.resolve("log"))) {
                assertThat(files.filter(f -> f.toString().endsWith(".seg")).count()).isGreaterThan(10);
            }
            for (String agent : List.of("sparse", "spread", "dense", "other-1")) {
                verifiesWhole(ledger, agent, 0);
            }
            // erased events among each walk: their segments are rewritten, the walks read them there
            long[] sparse = ledger.agentPositions("sparse");
            long[] spread = ledger.agentPositions("spread");
            long[] dense = ledger.agentPositions("dense");
            long[] targets = {sparse[1], spread[3], spread[4], dense[100], dense[101], sparse[sparse.length - 1]};
            Arrays.sort(targets);
            ledger.erasures().erase(targets, List.of("action_input"), "test", null, JSON.createObjectNode());
            verifiesWhole(ledger, "sparse", 2);
            verifiesWhole(ledger, "spread", 2);
            verifiesWhole(ledger, "dense", 2);
            verifiesWhole(ledger, "other-1", 0);
        }
    }

    @Test
    void oneBitChangedInAStoredEventFailsItsChainOnly() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            long[] dense = ledger.agentPositions("dense");
            // an event of another agent between two of dense's, inside dense's coalesced read
            long between = dense[300] + 1;
            assertThat(owner((int) between)).startsWith("other-");
            flipInFrame(ledger, between);
            verifiesWhole(ledger, "dense", 0);
            assertThat(failure(ledger, owner((int) between))).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);

            flipInFrame(ledger, dense[400]);
            assertThat(failure(ledger, "dense")).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);
            for (String agent : List.of("sparse", "spread")) {
                long[] own = ledger.agentPositions(agent);
                verifiesWhole(ledger, agent, 0);
                flipInFrame(ledger, own[own.length / 2]);
                assertThat(failure(ledger, agent)).as(agent).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);
            }
        }
    }

    @Test
    void oneBitChangedInAStoredLeafFailsItsChain() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            Path leaves = dir.resolve("merkle").resolve("level-00.hash");
            for (String agent : List.of("sparse", "spread", "dense")) {
                long[] own = ledger.agentPositions(agent);
                // a leaf already in the level's file (the newest ones are also held in memory)
                long leaf = Arrays.stream(own).filter(p -> p < 900).max().orElseThrow();
                verifiesWhole(ledger, agent, 0);
                flipBit(leaves, leaf * 32 + 17);
                assertThat(failure(ledger, agent)).as(agent).isEqualTo(ChainFailure.Kind.MERKLE_LEAF_MISMATCH);
            }
        }
    }
}
