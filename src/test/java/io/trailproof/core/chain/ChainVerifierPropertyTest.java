package io.trailproof.core.chain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.SubtreeHashes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ChainVerifier} against a reference written from the documented checks, one event at a time
 * from a full parse (hash recomputed from the content, agent, sequence, {@code prev_hash}, then the
 * event's leaf), over seeded random chains spread through a log among other agents' events, each with
 * one bit of one stored event or of one stored leaf changed: both report the same outcome, and a
 * change goes unreported only where the event's content and position are unchanged.
 */
class ChainVerifierPropertyTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String AGENT = "agent-7";

    /** The outcome of a verification: how many passed, and the first failure's check and sequence. */
    private record Outcome(long verified, String headHash, ChainFailure.Kind kind, long sequence) {
    }

    /** The agent's events in a log of other agents' events: positions, payloads and every leaf. */
    private static final class Log {
        final List<Long> positions = new ArrayList<>();
        final List<byte[]> payloads = new ArrayList<>();
        final List<byte[]> leaves = new ArrayList<>();
    }

    private static Log log(Random random) throws Exception {
        Log log = new Log();
        String prev = EventFields.GENESIS_PREV_HASH;
        long sequence = 1;
        int size = 8 + random.nextInt(24);
        for (long position = 0; position < size; position++) {
            boolean ours = random.nextInt(3) == 0;
            ObjectNode fields = JSON.createObjectNode().put("agent_id", ours ? AGENT : "other-" + random.nextInt(4));
            fields.put("action_name", "step " + random.nextInt(1000));
            fields.putObject("action_input").put("q", "x".repeat(random.nextInt(40))).put("n", random.nextInt());
            StoredEvent e = StoredEvent.seal(fields, "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f0" + (position % 10),
                    "2026-11-22T00:00:00.000001Z", ours ? sequence : 1, ours ? prev : EventFields.GENESIS_PREV_HASH,
                    position);
            log.leaves.add(Rfc9162.leafHash(e.hashBytes()));
            if (ours) {
                log.positions.add(position);
                log.payloads.add(e.payload());
                prev = e.hash();
                sequence++;
            }
        }
        return log;
    }

    private static SubtreeHashes leaves(List<byte[]> leaves) {
        return (level, index) -> {
            if (level != 0) {
                throw new IllegalArgumentException("only leaves are read");
            }
            return leaves.get((int) index).clone();
        };
    }

    private static Outcome verify(Log log, List<byte[]> payloads, List<byte[]> leaves) {
        ChainVerifier v = new ChainVerifier(AGENT, 1, EventFields.GENESIS_PREV_HASH);
        SubtreeHashes tree = leaves(leaves);
        for (int i = 0; i < payloads.size(); i++) {
            if (v.next(payloads.get(i), log.positions.get(i), tree).isPresent()) {
                break;
            }
        }
        return new Outcome(v.verified(), v.headHash(), v.failure().map(ChainFailure::kind).orElse(null),
                v.failure().map(ChainFailure::sequence).orElse(0L));
    }

    /** The reference: each documented check in turn, on a full parse of each stored event. */
    private static Outcome reference(Log log, List<byte[]> payloads, List<byte[]> leaves) {
        long expected = 1;
        String prev = EventFields.GENESIS_PREV_HASH;
        for (int i = 0; i < payloads.size(); i++) {
            ChainFailure.Kind failed = null;
            StoredEvent e = null;
            try {
                e = StoredEvent.parse(payloads.get(i));
            } catch (Exception unreadable) {
                failed = ChainFailure.Kind.HASH_MISMATCH;
            }
            long position = log.positions.get(i);
            if (failed == null && !HexFormat.of().formatHex(e.recomputeHash()).equals(e.hash())) {
                failed = ChainFailure.Kind.HASH_MISMATCH;
            } else if (failed == null && !AGENT.equals(e.agentId())) {
                failed = ChainFailure.Kind.HASH_MISMATCH;
            } else if (failed == null && e.sequence() != expected) {
                failed = ChainFailure.Kind.SEQUENCE_GAP;
            } else if (failed == null && !e.prevHash().equals(prev)) {
                failed = ChainFailure.Kind.PREV_HASH_MISMATCH;
            } else if (failed == null && (e.logIndex() != position || !Arrays.equals(
                    Rfc9162.leafHash(HexFormat.of().parseHex(e.hash())), leaves.get((int) position)))) {
                failed = ChainFailure.Kind.MERKLE_LEAF_MISMATCH;
            }
            if (failed != null) {
                return new Outcome(i, prev, failed, expected);
            }
            expected++;
            prev = e.hash();
        }
        return new Outcome(payloads.size(), prev, null, 0);
    }

    @Test
    void intactChainsVerifyAsTheReferenceSays() throws Exception {
        Random random = new Random(31);
        for (int n = 0; n < 100; n++) {
            Log log = log(random);
            Outcome outcome = verify(log, log.payloads, log.leaves);
            assertThat(outcome).isEqualTo(reference(log, log.payloads, log.leaves));
            assertThat(outcome.kind()).isNull();
            assertThat(outcome.verified()).isEqualTo(log.payloads.size());
        }
    }

    @Test
    void everyOneBitChangeOfAStoredEventIsFoundAsTheReferenceFindsIt() throws Exception {
        Random random = new Random(32);
        for (int n = 0; n < 4; n++) {
            Log log = log(random);
            if (log.payloads.isEmpty()) {
                continue;
            }
            int event = random.nextInt(log.payloads.size());
            byte[] original = log.payloads.get(event);
            for (int pos = 0; pos < original.length; pos++) {
                for (int bit = 0; bit < 8; bit++) {
                    List<byte[]> payloads = new ArrayList<>(log.payloads);
                    byte[] changed = original.clone();
                    changed[pos] ^= (byte) (1 << bit);
                    payloads.set(event, changed);
                    Outcome outcome = verify(log, payloads, log.leaves);
                    assertThat(outcome).as("byte " + pos + " bit " + bit).isEqualTo(reference(log, payloads, log.leaves));
                    if (outcome.kind() == null) {
                        // Unreported: the same content at the same position, only written otherwise.
                        StoredEvent e = StoredEvent.parse(changed);
                        assertThat(EventHash.toHex(e.recomputeHash())).isEqualTo(StoredEvent.parse(original).hash());
                        assertThat(e.logIndex()).isEqualTo(log.positions.get(event));
                    } else {
                        assertThat(outcome.sequence()).isEqualTo(event + 1);
                    }
                }
            }
        }
    }

    @Test
    void everyOneBitChangeOfALeafOfTheChainIsFound() throws Exception {
        Random random = new Random(33);
        for (int n = 0; n < 40; n++) {
            Log log = log(random);
            if (log.payloads.isEmpty()) {
                continue;
            }
            int event = random.nextInt(log.payloads.size());
            int position = (int) (long) log.positions.get(event);
            List<byte[]> leaves = new ArrayList<>(log.leaves);
            byte[] leaf = leaves.get(position).clone();
            leaf[random.nextInt(leaf.length)] ^= (byte) (1 << random.nextInt(8));
            leaves.set(position, leaf);
            Outcome outcome = verify(log, log.payloads, leaves);
            assertThat(outcome).isEqualTo(reference(log, log.payloads, leaves));
            assertThat(outcome.kind()).isEqualTo(ChainFailure.Kind.MERKLE_LEAF_MISMATCH);
            assertThat(outcome.sequence()).isEqualTo(event + 1);
            assertThat(outcome.verified()).isEqualTo(event);
        }
    }
}
