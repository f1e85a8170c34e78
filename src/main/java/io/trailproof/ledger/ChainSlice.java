package io.trailproof.ledger;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.merkle.InclusionProofCursor;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.store.EventLog;
import io.trailproof.store.MerkleNodeStore;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A consistent snapshot of a run of one agent's chain, for an evidence package: the tree size and
 * root when it was taken, and the agent's consecutive events in that tree, read from the log when
 * visited (never all held at once). Everything it answers is fixed at {@link #treeSize()}:
 * appends after the snapshot do not change it.
 *
 * <p>A slice by time window (src/site/evidence-format.md) runs from the agent's first event whose {@code timestamp} is
 * in {@code [since, until)} to its last such event, including every event between them, so that it
 * is one unbroken run of the chain that verifies from a single anchor.
 */
public final class ChainSlice {

    /** Receives the slice's events in sequence order. */
    @FunctionalInterface
    public interface EventVisitor {
        void accept(long logIndex, byte[] payload) throws IOException;
    }

    // Positions held at once while reading: bounded memory whatever the slice's length.
    private static final int POSITIONS_PER_BATCH = 8192;

    private final String agentId;
    private final AgentState state;
    private final EventLog log;
    private final MerkleNodeStore tree;
    private final long treeSize;
    private final byte[] root;
    private final Instant takenAt;
    private final int fromOrdinal;
    private final int toOrdinal;
    private final long firstSequence;
    private final long lastSequence;
    private final String anchorHash;
    /** The erasure events' agent (src/site/erasure.md), or null when the log has none. */
    private final AgentState erasures;

    ChainSlice(String agentId, AgentState state, EventLog log, MerkleNodeStore tree, long treeSize, byte[] root,
               Instant takenAt, int fromOrdinal, int toOrdinal, long firstSequence, long lastSequence,
               String anchorHash, AgentState erasures) {
        this.agentId = agentId;
        this.erasures = erasures;
        this.state = state;
        this.log = log;
        this.tree = tree;
        this.treeSize = treeSize;
        this.root = root;
        this.takenAt = takenAt;
        this.fromOrdinal = fromOrdinal;
        this.toOrdinal = toOrdinal;
        this.firstSequence = firstSequence;
        this.lastSequence = lastSequence;
        this.anchorHash = anchorHash;
    }

    public String agentId() {
        return agentId;
    }

    /** The size of the log's tree at the snapshot; every proof is against it. */
    public long treeSize() {
        return treeSize;
    }

    /** The tree's root at {@link #treeSize()}. */
    public byte[] root() {
        return root.clone();
    }

    /** The ledger's clock when the snapshot was taken. */
    public Instant takenAt() {
        return takenAt;
    }

    /** Number of events in the slice; 0 when the window holds none. */
    public long length() {
        return toOrdinal - fromOrdinal;
    }

    /** The first event's sequence as stored; meaningless when {@link #length()} is 0. */
    public long firstSequence() {
        return firstSequence;
    }

    public long lastSequence() {
        return lastSequence;
    }

    /** The first event's {@code prev_hash} as stored: what the slice links to; null when empty. */
    public String anchorHash() {
        return anchorHash;
    }

    /** The log index (leaf index) of the slice's last event; -1 when the slice is empty. */
    public long lastLogIndex() {
        return toOrdinal > fromOrdinal ? state.positionAt(toOrdinal - 1) : -1;
    }

    /**
     * Reads the slice's events from the log in sequence order, neighbouring frames together, holding
     * at most a batch of positions and one read window at a time. Stops at the first frame that fails
     * its check, with a {@link io.trailproof.store.CorruptLogException} after the events before it.
     */
    public void forEach(EventVisitor visitor) throws IOException {
        for (int from = fromOrdinal; from < toOrdinal; from += POSITIONS_PER_BATCH) {
            int to = (int) Math.min(toOrdinal, (long) from + POSITIONS_PER_BATCH);
            log.readEach(state.positions(from, to), visitor::accept);
        }
    }

    /**
     * The leaf hashes and inclusion proofs of the slice's events, for one walk over them; cheapest in
     * the order {@link #forEach} visits them. Single-threaded.
     */
    public Proofs proofs() {
        LeafWindow nodes = new LeafWindow(tree, treeSize);
        return new Proofs(nodes, new InclusionProofCursor(nodes, treeSize));
    }

    /** See {@link #proofs()}. */
    public static final class Proofs {
        private final LeafWindow nodes;
        private final InclusionProofCursor cursor;

        private Proofs(LeafWindow nodes, InclusionProofCursor cursor) {
            this.nodes = nodes;
            this.cursor = cursor;
        }

        /** The RFC 9162 leaf hash stored in the tree for {@code logIndex}. */
        public byte[] leafHash(long logIndex) {
            return nodes.get(0, logIndex);
        }

        /**
         * The RFC 9162 inclusion proof (audit path) of {@code logIndex} in the tree of
         * {@link ChainSlice#treeSize()}; its hashes are shared with later answers, not to be modified.
         */
        public List<byte[]> inclusionProof(long logIndex) {
            return cursor.proof(logIndex);
        }
    }

    /** An erasure event of the snapshot: its log index and its payload as stored. */
    public record ErasureEvent(long logIndex, byte[] payload) {
    }

    /**
     * The erasure events of the snapshot whose ids are in {@code ids} (src/site/erasure.md), in log
     * order; an id no erasure event of the snapshot has is left out. Reads every erasure event of the
     * log, which are few.
     */
    public List<ErasureEvent> erasureEvents(Set<String> ids) throws IOException {
        List<ErasureEvent> out = new ArrayList<>();
        if (erasures == null || ids.isEmpty()) {
            return out;
        }
        log.readEach(erasures.positionsBelow(treeSize), (index, payload) -> {
            try {
                if (ids.contains(StoredEvent.parse(payload).id())) {
                    out.add(new ErasureEvent(index, payload));
                }
            } catch (StoredEventFormatException e) {
                throw new IOException("erasure event at log index " + index + " is unreadable: " + e.getMessage(), e);
            }
        });
        return out;
    }

    /**
     * The RFC 9162 consistency proof from the tree of {@code fromSize} to the tree of {@link #treeSize()}
     * (empty when they are the same size).
     *
     * @throws IllegalArgumentException when {@code fromSize} is not between 1 and {@link #treeSize()}
     */
    public List<byte[]> consistencyProof(long fromSize) {
        if (fromSize < 1 || fromSize > treeSize) {
            throw new IllegalArgumentException("a consistency proof needs 1 <= from <= " + treeSize + ", was " + fromSize);
        }
        return MerkleTree.consistencyProof(tree, fromSize, treeSize);
    }
}
