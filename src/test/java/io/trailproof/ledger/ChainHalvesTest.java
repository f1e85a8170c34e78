package io.trailproof.ledger;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.chain.ChainFailure;
import io.trailproof.core.chain.ChainVerifier;
import io.trailproof.core.event.EventFields;
import io.trailproof.ledger.LedgerViews.ChainReport;
import io.trailproof.store.CorruptLogException;
import io.trailproof.testing.LogSurgeon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long chain is verified on demand in two halves at once; its answer must be the one walk's, event
 * for event. The reference here is that one walk, written apart: every event of the chain read in
 * order and handed to a {@link ChainVerifier} (no leaf check: the changes made here fail before it).
 * Changes fall in the first half, on the two events where the halves join, in the second half and
 * on the last event, both as a frame that no longer passes its check and as content that no longer
 * hashes to its {@code hash} (every check of the log recomputed, as an attacker would).
 */
class ChainHalvesTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CHAIN = ChainAudit.HALVES_FROM_EVENTS + 808;

    @TempDir
    Path dir;

    private Ledger open() throws Exception {
        return Ledger.open(dir, new LedgerOptions(64L << 20, 100_000),
                Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC), new Random(1));
    }

    private static void fill(Ledger ledger) throws Exception {
        Random random = new Random(3);
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0, mine = 0; mine < CHAIN; i++) {
            String agent = i % 3 == 2 ? "other-" + random.nextInt(4) : "long";
            mine += agent.equals("long") ? 1 : 0;
            ObjectNode e = JSON.createObjectNode().put("agent_id", agent);
            e.putObject("action_input").put("n", 1000 + random.nextInt(9000)).put("text", "x".repeat(random.nextInt(200)));
            batch.add(e);
            if (batch.size() == 500) {
                ledger.append(batch);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            ledger.append(batch);
        }
    }

    /** The one walk: the chain's events in order through one verifier, stopping at its first failure. */
    private static ChainReport oneWalk(Ledger ledger, String agent) throws Exception {
        ChainVerifier v = new ChainVerifier(agent, 1, EventFields.GENESIS_PREV_HASH);
        for (long position : ledger.agentPositions(agent)) {
            byte[] payload;
            try {
                payload = ledger.payloadAt(position);
            } catch (CorruptLogException e) {
                v.unreadable(e.getMessage());
                break;
            }
            if (v.next(payload, position, null).isPresent()) {
                break;
            }
        }
        return new ChainReport(agent, v.failure().isEmpty(), v.verified(), v.headSequence(), v.headHash(), v.failure(),
                v.erased());
    }

    private static void answersAsOneWalk(Ledger ledger, String what) throws Exception {
        ChainReport halves = ledger.verify("long").orElseThrow();
        ChainReport reference = oneWalk(ledger, "long");
        assertThat(halves.valid()).as(what).isEqualTo(reference.valid());
        assertThat(halves.eventsVerified()).as(what).isEqualTo(reference.eventsVerified());
        assertThat(halves.headSequence()).as(what).isEqualTo(reference.headSequence());
        assertThat(halves.headHash()).as(what).isEqualTo(reference.headHash());
        assertThat(halves.erased()).as(what).isEqualTo(reference.erased());
        assertThat(halves.failure().map(ChainFailure::kind)).as(what).isEqualTo(reference.failure().map(ChainFailure::kind));
        assertThat(halves.failure().map(ChainFailure::sequence)).as(what)
                .isEqualTo(reference.failure().map(ChainFailure::sequence));
        assertThat(halves.failure().map(ChainFailure::expected)).as(what)
                .isEqualTo(reference.failure().map(ChainFailure::expected));
    }

    private static void flipBitInFrame(Path segment, byte[] payload) throws Exception {
        byte[] bytes = Files.readAllBytes(segment);
        for (int at = 0; at + payload.length <= bytes.length; at++) {
            if (Arrays.equals(bytes, at, at + payload.length, payload, 0, payload.length)) {
                try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    long offset = at + payload.length / 2;
                    ByteBuffer b = ByteBuffer.allocate(1);
                    ch.read(b, offset);
                    b.put(0, (byte) (b.get(0) ^ 4)).rewind();
                    ch.write(b, offset);
                }
                return;
            }
        }
        throw new AssertionError("frame not found");
    }

    @Test
    void anIntactLongChainIsVerifiedWholeAsByOneWalk() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            assertThat(ledger.agentPositions("long")).hasSize(CHAIN);
            ChainReport r = ledger.verify("long").orElseThrow();
            assertThat(r.valid()).isTrue();
            assertThat(r.eventsVerified()).isEqualTo(CHAIN);
            assertThat(r.headSequence()).isEqualTo(CHAIN);
            answersAsOneWalk(ledger, "intact");
        }
    }

    @Test
    void aFrameThatFailsItsCheckAnywhereIsReportedAsOneWalkReportsIt() throws Exception {
        try (Ledger ledger = open()) {
            fill(ledger);
            long[] own = ledger.agentPositions("long");
            int k = own.length / 2;
            Path segment = LogSurgeon.onlySegment(dir);
            // From the chain's end toward its start, so that each change is the first one in the chain.
            for (int at : new int[] {own.length - 1, k + 500, k, k - 1, 100}) {
                flipBitInFrame(segment, ledger.payloadAt(own[at]));
                answersAsOneWalk(ledger, "frame of event " + (at + 1));
                assertThat(ledger.verify("long").orElseThrow().failure().orElseThrow().sequence()).isEqualTo(at + 1);
            }
        }
    }

    @Test
    void contentThatNoLongerHashesToItsHashIsReportedAsOneWalkReportsIt() throws Exception {
        long[] own;
        try (Ledger ledger = open()) {
            fill(ledger);
            own = ledger.agentPositions("long");
        }
        int k = own.length / 2;
        for (int at : new int[] {k + 1, k, k - 1, 7}) {
            long position = own[at];
            LogSurgeon.rewrite(LogSurgeon.onlySegment(dir), records -> {
                String text = new String(records.get((int) position), StandardCharsets.UTF_8);
                int n = text.indexOf("\"n\":") + 4;
                char digit = text.charAt(n) == '9' ? '8' : '9';
                records.set((int) position, (text.substring(0, n) + digit + text.substring(n + 1))
                        .getBytes(StandardCharsets.UTF_8));
                return records;
            });
            try (Ledger ledger = open()) {
                answersAsOneWalk(ledger, "content of event " + (at + 1));
                ChainFailure f = ledger.verify("long").orElseThrow().failure().orElseThrow();
                assertThat(f.kind()).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);
                assertThat(f.sequence()).isEqualTo(at + 1);
            }
        }
    }
}
