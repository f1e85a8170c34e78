package io.trailproof.core.chain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.merkle.InMemorySubtreeHashes;
import io.trailproof.core.merkle.Rfc9162;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

class ChainVerifierTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Five events of agent "a" at log positions 0..4, and the tree over them. */
    private final List<StoredEvent> events = new ArrayList<>();
    private final InMemorySubtreeHashes tree = new InMemorySubtreeHashes();

    ChainVerifierTest() throws Exception {
        String prev = EventFields.GENESIS_PREV_HASH;
        for (int i = 0; i < 5; i++) {
            ObjectNode fields = JSON.createObjectNode().put("agent_id", "a").put("action_name", "step " + i);
            StoredEvent e = StoredEvent.seal(fields, "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f0" + i,
                    "2026-11-22T00:00:00.00000" + i + "Z", i + 1, prev, i);
            events.add(e);
            tree.append(Rfc9162.leafHash(e.hashBytes()));
            prev = e.hash();
        }
    }

    private Optional<ChainFailure> verify(List<byte[]> payloads) {
        ChainVerifier v = new ChainVerifier("a", 1, EventFields.GENESIS_PREV_HASH);
        for (int i = 0; i < payloads.size(); i++) {
            if (v.next(payloads.get(i), i, tree).isPresent()) {
                break;
            }
        }
        return v.failure();
    }

    private List<byte[]> payloads() {
        List<byte[]> out = new ArrayList<>();
        events.forEach(e -> out.add(e.payload()));
        return out;
    }

    private static byte[] edit(byte[] payload, Consumer<ObjectNode> change) throws Exception {
        ObjectNode node = (ObjectNode) JSON.readTree(payload);
        change.accept(node);
        return Rfc8785.canonicalize(node);
    }

    @Test
    void intactChainVerifies() {
        ChainVerifier v = new ChainVerifier("a", 1, EventFields.GENESIS_PREV_HASH);
        for (int i = 0; i < 5; i++) {
            assertThat(v.next(events.get(i).payload(), i, tree)).isEmpty();
        }
        assertThat(v.verified()).isEqualTo(5);
        assertThat(v.headSequence()).isEqualTo(5);
        assertThat(v.headHash()).isEqualTo(events.get(4).hash());
    }

    @Test
    void everyFieldEditIsAHashMismatchWithTheEvidence() throws Exception {
        for (String field : List.of("action_name", "agent_id", "id", "recorded_at", "timestamp", "schema_version")) {
            List<byte[]> p = payloads();
            p.set(2, edit(p.get(2), n -> n.put(field, "forged")));
            ChainFailure f = verify(p).orElseThrow();
            assertThat(f.kind()).as(field).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);
            assertThat(f.sequence()).isEqualTo(3);
            assertThat(f.expected()).isEqualTo(events.get(2).hash());
            assertThat(f.actual()).isNotEqualTo(f.expected());
            assertThat(f.message()).isEqualTo("hash mismatch at sequence 3");
        }
    }

    @Test
    void removedEventIsASequenceGap() {
        List<byte[]> p = payloads();
        p.remove(1);
        ChainVerifier v = new ChainVerifier("a", 1, EventFields.GENESIS_PREV_HASH);
        v.next(p.get(0), 0, null);
        ChainFailure f = v.next(p.get(1), 2, null).orElseThrow();
        assertThat(f.kind()).isEqualTo(ChainFailure.Kind.SEQUENCE_GAP);
        assertThat(f.message()).isEqualTo("sequence gap at sequence 2");
        assertThat(f.expected()).isEqualTo("2");
        assertThat(f.actual()).isEqualTo("3");
    }

    @Test
    void relinkedEventIsAPrevHashMismatch() throws Exception {
        List<byte[]> p = payloads();
        byte[] forged = edit(p.get(3), n -> n.put("prev_hash", "ab".repeat(32)));
        ObjectNode node = (ObjectNode) JSON.readTree(forged);
        node.put("hash", HexFormat.of().formatHex(StoredEvent.parse(forged).recomputeHash()));
        p.set(3, Rfc8785.canonicalize(node));
        ChainFailure f = verify(p).orElseThrow();
        assertThat(f.message()).isEqualTo("prev_hash mismatch at sequence 4");
        assertThat(f.expected()).isEqualTo(events.get(2).hash());
        assertThat(f.actual()).isEqualTo("ab".repeat(32));
    }

    @Test
    void treeLeafThatDisagreesIsAMerkleLeafMismatch() {
        InMemorySubtreeHashes other = new InMemorySubtreeHashes();
        for (int i = 0; i < 5; i++) {
            other.append(i == 1 ? Rfc9162.leafHash(new byte[32]) : Rfc9162.leafHash(events.get(i).hashBytes()));
        }
        ChainVerifier v = new ChainVerifier("a", 1, EventFields.GENESIS_PREV_HASH);
        v.next(events.get(0).payload(), 0, other);
        ChainFailure f = v.next(events.get(1).payload(), 1, other).orElseThrow();
        assertThat(f.message()).isEqualTo("merkle leaf mismatch at sequence 2");
        // At the wrong position the event's log_index disagrees with where it was found.
        ChainVerifier w = new ChainVerifier("a", 1, EventFields.GENESIS_PREV_HASH);
        assertThat(w.next(events.get(0).payload(), 7, tree).orElseThrow().kind())
                .isEqualTo(ChainFailure.Kind.MERKLE_LEAF_MISMATCH);
    }

    @Test
    void unreadableBytesAreAHashMismatch() {
        ChainVerifier v = new ChainVerifier("a", 1, EventFields.GENESIS_PREV_HASH);
        ChainFailure f = v.next("{not json".getBytes(), 0, tree).orElseThrow();
        assertThat(f.kind()).isEqualTo(ChainFailure.Kind.HASH_MISMATCH);
        assertThat(f.sequence()).isEqualTo(1);
        assertThat(new ChainVerifier("a", 1, "x").unreadable("bad CRC").orElseThrow().message())
                .isEqualTo("hash mismatch at sequence 1");
    }
}
