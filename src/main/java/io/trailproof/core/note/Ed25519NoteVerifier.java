package io.trailproof.core.note;

import java.nio.charset.StandardCharsets;

/** An Ed25519 note-signature key (signature type 0x01): the signature is over the note text itself. */
public record Ed25519NoteVerifier(String name, byte[] publicKey) implements NoteVerifier {

    public Ed25519NoteVerifier {
        publicKey = publicKey.clone();
    }

    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    @Override
    public int keyId() {
        return SignedNote.keyId(name, SignedNote.TYPE_ED25519, publicKey);
    }

    @Override
    public String vkey() {
        return VerifierKey.format(name, SignedNote.TYPE_ED25519, publicKey);
    }

    @Override
    public boolean verify(String text, byte[] signature) {
        return Ed25519.verify(publicKey, text.getBytes(StandardCharsets.UTF_8), signature);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ed25519NoteVerifier v && v.vkey().equals(vkey());
    }

    @Override
    public int hashCode() {
        return vkey().hashCode();
    }

    @Override
    public String toString() {
        return vkey();
    }
}
