package io.trailproof.core.note;

/**
 * What the Ed25519 verifier keys share: a name and a public key of one signature type, the key id
 * and the vkey text they make, and identity by that vkey (which holds the type, so keys of two types
 * are never equal). The subclass says what a signature signs.
 */
public abstract sealed class Ed25519Verifier implements NoteVerifier permits CosignatureVerifier, Ed25519NoteVerifier {

    private final String name;
    private final byte type;
    private final byte[] publicKey;

    Ed25519Verifier(String name, byte type, byte[] publicKey) {
        this.name = name;
        this.type = type;
        this.publicKey = publicKey.clone();
    }

    @Override
    public String name() {
        return name;
    }

    /** The 32-byte Ed25519 public key (a copy). */
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** The key itself, not a copy, for the subclass's verification. */
    byte[] key() {
        return publicKey;
    }

    @Override
    public int keyId() {
        return SignedNote.keyId(name, type, publicKey);
    }

    @Override
    public String vkey() {
        return VerifierKey.format(name, type, publicKey);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ed25519Verifier v && v.vkey().equals(vkey());
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
