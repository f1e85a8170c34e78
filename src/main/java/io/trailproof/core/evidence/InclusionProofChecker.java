package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.merkle.InclusionCheck;
import io.trailproof.core.merkle.MerkleProofs;

import java.util.Arrays;
import java.util.List;

/**
 * The check {@link EvidenceCheck#INCLUSION_PROOFS}: the k-th proof is the k-th event's, its leaf is
 * the RFC 9162 leaf hash of that event's hash at that event's log index, and it leads to the stated
 * {@code merkle_root} of a tree of the stated {@code tree_size}. Fed one proof at a time by the
 * reader, after the events, whose facts it finds in {@link EventLeaves}. Every failing proof is
 * counted; the first one's evidence is kept.
 */
final class InclusionProofChecker implements PackageReader.ProofSink {

    private final PackageHeader header;
    private final EventLeaves leaves;
    private final Tally inclusion = new Tally(EvidenceCheck.INCLUSION_PROOFS);
    private int count;
    private boolean started;
    private byte[] root;
    private Long treeSize;

    InclusionProofChecker(PackageHeader header, EventLeaves leaves) {
        this.header = header;
        this.leaves = leaves;
    }

    @Override
    public void proof(JsonNode item) {
        if (!started) {
            // The reader hands proofs on only once the root and the tree size have been read.
            root = header.merkleRoot();
            treeSize = header.treeSize();
            started = true;
        }
        if (count < leaves.size()) {
            check(count, item);
        }
        count++;
    }

    @Override
    public void endOfProofs() {
        for (int i = count; i < leaves.size(); i++) {
            inclusion.fail(leaves.sequence(i), leaves.id(i), "an inclusion proof for this event", "none",
                    "the event has no inclusion proof (there is one per event, in event order)");
        }
        if (count > leaves.size()) {
            inclusion.fail(null, null, leaves.size() + " proofs (one per event)", count + " proofs",
                    "there are more proofs than events: an event may have been removed");
        }
    }

    CheckResult result() {
        return leaves.size() == 0 && !inclusion.failed()
                ? CheckResult.skipped(EvidenceCheck.INCLUSION_PROOFS, "the package contains no events")
                : inclusion.result(leaves.size() + " inclusion proofs lead to the root "
                + text(header.get(MERKLE_ROOT)) + " of the tree of " + header.treeSize() + " events");
    }

    /** The k-th proof, against the k-th event. */
    private void check(int k, JsonNode item) {
        Long seq = leaves.sequence(k);
        String id = leaves.id(k);
        JsonNode proof = item == null ? null : item.get(PROOF);
        String eventId = text(item, EVENT_ID);
        byte[] leafHash = hash(proof == null ? null : proof.get(LEAF_HASH));
        Long leafIndex = whole(proof, LEAF_INDEX);
        Long proofTreeSize = whole(proof, TREE_SIZE);
        List<byte[]> siblings = hashes(proof == null ? null : proof.get(SIBLINGS));
        if (eventId == null || leafHash == null || leafIndex == null || proofTreeSize == null || siblings == null) {
            inclusion.fail(seq, id, "a proof with event_id, leaf_hash, leaf_index, siblings and tree_size",
                    item == null ? "unreadable" : String.valueOf(item),
                    "the inclusion proof of this event is incomplete or malformed");
            return;
        }
        if (!leaves.idEquals(k, eventId)) {
            inclusion.fail(seq, id, "a proof of event " + id, "a proof of event " + eventId,
                    "the proofs are not those of the events: one is missing, added or out of order");
            return;
        }
        if (!leaves.readable(k)) {
            inclusion.fail(seq, id, "a readable event", "unreadable", "the event cannot be read, so it cannot be proven");
            return;
        }
        byte[] leaf = leaves.leaf(k);
        if (!Arrays.equals(leaf, leafHash)) {
            inclusion.fail(seq, id, hex(leaf), hex(leafHash),
                    "the proof's leaf_hash is not the RFC 9162 leaf hash of the event's hash");
            return;
        }
        if (leafIndex != leaves.logIndex(k)) {
            inclusion.fail(seq, id, "leaf_index " + leaves.logIndex(k), "leaf_index " + leafIndex,
                    "the proof is for another position in the log than the event's log_index");
            return;
        }
        if (root == null || treeSize == null) {
            return; // a format failure already says the package has no usable root or size
        }
        if (!proofTreeSize.equals(treeSize)) {
            inclusion.fail(seq, id, "tree_size " + treeSize, "tree_size " + proofTreeSize,
                    "the proof is for a tree of another size than the package's tree_size");
            return;
        }
        InclusionCheck c = MerkleProofs.checkInclusion(leaf, leaves.logIndex(k), treeSize, siblings, root);
        if (!c.valid()) {
            inclusion.fail(seq, id, hex(root), c.computedRoot() == null ? c.reason() : hex(c.computedRoot()),
                    c.computedRoot() == null ? "the inclusion proof does not fit a tree of " + treeSize
                            + " events: " + c.reason()
                            : "the inclusion proof leads to another root than the package's merkle_root");
        }
    }
}
