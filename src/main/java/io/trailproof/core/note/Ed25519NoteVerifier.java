package io.trailproof.core.note;

import java.nio.charset.StandardCharsets;

/** An Ed25519 note-signature key (signature type 0x01): the signature is over the note text itself. */
public final class Ed25519NoteVerifier extends Ed25519Verifier {

    public Ed25519NoteVerifier(String name, byte[] publicKey) {
        super(name, SignedNote.TYPE_ED25519, publicKey);
    }

    @Override
    public boolean verify(String text, byte[] signature) {
        return Ed25519.verify(key(), text.getBytes(StandardCharsets.UTF_8), signature);
    }
}
