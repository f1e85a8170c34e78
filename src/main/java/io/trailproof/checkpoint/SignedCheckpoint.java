package io.trailproof.checkpoint;

import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogCheckpoint;
import java.util.ArrayList;
import java.util.List;

/**
 * A checkpoint this log signed (tlog-checkpoint), with the witness cosignatures gathered for it so
 * far. Not to be confused with {@code io.trailproof.ledger.Checkpoint}, the ledger's recovery state.
 *
 * @param checkpoint origin, size and root
 * @param note the signed note: the log's signature first, then verified cosignatures
 */
public record SignedCheckpoint(TlogCheckpoint checkpoint, SignedNote note) {

    public long size() {
        return checkpoint.size();
    }

    /** The note as served at {@code /checkpoint}. */
    public String text() {
        return note.format();
    }

    /** The cosignatures (every signature after the log's own). */
    public List<NoteSignature> cosignatures() {
        return note.signatures().subList(1, note.signatures().size());
    }

    /** This checkpoint with {@code cosignature} added, replacing an earlier one by the same key. */
    public SignedCheckpoint withCosignature(NoteSignature cosignature) {
        List<NoteSignature> sigs = new ArrayList<>(note.signatures());
        sigs.removeIf(s -> s != sigs.get(0) && s.name().equals(cosignature.name()) && s.keyId() == cosignature.keyId());
        sigs.add(cosignature);
        return new SignedCheckpoint(checkpoint, new SignedNote(note.text(), sigs));
    }
}
