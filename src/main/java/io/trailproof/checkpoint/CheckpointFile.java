package io.trailproof.checkpoint;

import io.trailproof.core.note.NoteVerification;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.store.AtomicFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The last signed checkpoint on disk ({@code DIR/tlog/checkpoint}), the note exactly as served.
 * {@link #write} replaces it atomically and durably (see {@link AtomicFile}): after a crash the file
 * holds the previous checkpoint or the new one, so the log never forgets a size and root it signed.
 */
final class CheckpointFile {
    static final String NAME = "tlog/checkpoint";

    private final Path file;

    CheckpointFile(Path dataDir) {
        this.file = dataDir.resolve(NAME);
    }

    Path path() {
        return file;
    }

    /**
     * The stored checkpoint, verified with the log's own key; empty when none was ever signed.
     *
     * @throws TlogRejection when the file is not a checkpoint signed by {@code log} (damage or tampering)
     */
    Optional<SignedCheckpoint> read(NoteVerifier log) throws IOException, TlogRejection {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        SignedNote note = SignedNote.parse(Files.readAllBytes(file));
        NoteVerification.Opened opened = NoteVerification.open(note, List.of(log));
        if (!opened.signedBy(log) || !note.signatures().get(0).name().equals(log.name())) {
            throw new TlogRejection(TlogRejection.Kind.NO_TRUSTED_SIGNATURE, "not signed first by this log's key",
                    file.toString());
        }
        return Optional.of(new SignedCheckpoint(TlogCheckpoint.parse(note.text()), note));
    }

    void write(SignedCheckpoint checkpoint) throws IOException {
        AtomicFile.write(file, checkpoint.note().bytes());
    }
}
