package io.trailproof.cluster;

import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.TlogCheckpoint;

import java.io.IOException;

/**
 * Where the apply loop hands the witness cosignatures of the topic (the node's checkpoint service,
 * wired by the server; this package knows nothing of checkpoints). The loop has checked that
 * {@code checkpoint}'s root is this node's root at its size.
 */
@FunctionalInterface
public interface ReplicatedCosignatures {

    /** Keeps nothing: a node with no checkpoint service (tests of the apply path alone). */
    ReplicatedCosignatures NONE = (checkpoint, cosignature) -> { };

    /**
     * Keeps {@code cosignature} with this node's checkpoint of {@code checkpoint}'s size, durably when
     * that is the node's latest checkpoint; applying the same cosignature twice keeps it once.
     *
     * @throws IOException when it cannot be stored (the apply loop stops)
     * @throws IllegalStateException when the cosignature is by a configured witness's key but does not
     *     verify: damage or forgery (the apply loop stops)
     */
    void adopt(TlogCheckpoint checkpoint, NoteSignature cosignature) throws IOException;
}
