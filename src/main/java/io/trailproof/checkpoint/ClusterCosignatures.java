package io.trailproof.checkpoint;

import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.VerifierKey;

import java.io.IOException;
import java.util.List;

/**
 * What every node of a cluster does with a witness cosignature that the topic brings (the node
 * running the cluster's scheduled work asked the witness): it verifies it with its own configuration
 * of that witness and keeps it with its own checkpoint of that size ({@link
 * CheckpointService#adoptCosignature}), so every node serves the cosigned checkpoint.
 *
 * <ul>
 *   <li>A cosignature by a key of {@code checkpoint.witnesses} that does not verify over the checkpoint
 *       is damage or forgery: {@link IllegalStateException}, which stops the apply loop.</li>
 *   <li>A cosignature by a witness this node is not configured with, or of another origin (the nodes do
 *       not share {@code checkpoint.signing-key} and {@code checkpoint.origin}), is a difference of
 *       configuration, not of history: not kept, said in the log, and the node goes on.</li>
 * </ul>
 */
public final class ClusterCosignatures {

    private static final System.Logger LOG = System.getLogger(ClusterCosignatures.class.getName());

    private final CheckpointService checkpoints;
    private final List<NoteVerifier> witnesses;

    public ClusterCosignatures(CheckpointService checkpoints, List<NoteVerifier> witnesses) {
        this.checkpoints = checkpoints;
        this.witnesses = List.copyOf(witnesses);
    }

    /** Verifies and keeps one replicated cosignature; see the class comment for what is refused. */
    public void adopt(TlogCheckpoint checkpoint, NoteSignature cosignature) throws IOException {
        String key = cosignature.name() + "+" + VerifierKey.keyIdHex(cosignature.keyId());
        NoteVerifier witness = witnesses.stream()
                .filter(w -> w.name().equals(cosignature.name()) && w.keyId() == cosignature.keyId())
                .findFirst().orElse(null);
        if (witness == null) {
            LOG.log(System.Logger.Level.WARNING, "a cosignature of tree size " + checkpoint.size() + " by witness " + key
                    + " came through the topic, but checkpoint.witnesses of this node does not name that key: not kept "
                    + "here (give every node the same checkpoint.witnesses)");
            return;
        }
        if (!checkpoint.origin().equals(checkpoints.origin())) {
            LOG.log(System.Logger.Level.WARNING, "a cosignature of tree size " + checkpoint.size() + " for origin "
                    + checkpoint.origin() + " came through the topic, but this node signs as " + checkpoints.origin()
                    + ": not kept here (give every node the same checkpoint.signing-key and checkpoint.origin)");
            return;
        }
        if (!witness.verify(checkpoint.text(), cosignature.signature())) {
            throw new IllegalStateException("the cosignature by witness " + key + " of tree size " + checkpoint.size()
                    + " does not verify over the checkpoint it names: damage or forgery");
        }
        if (!checkpoints.adoptCosignature(checkpoint, cosignature)) {
            LOG.log(System.Logger.Level.WARNING, "the cosignature by witness " + key + " of tree size "
                    + checkpoint.size() + " is not kept: this node does not sign that checkpoint (see GET /health)");
        }
    }
}
