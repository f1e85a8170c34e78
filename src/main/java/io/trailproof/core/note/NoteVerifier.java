package io.trailproof.core.note;

/**
 * A trusted public key that checks note signatures: a name, a key id and a signature type.
 * {@link VerifierKey#parse} makes one from the verifier-key text form.
 */
public interface NoteVerifier {
    /** The key name, as it appears in signature lines. */
    String name();

    /** The 4-byte key id, as it starts every signature by this key. */
    int keyId();

    /** The verifier-key text form {@code <name>+<8 hex key id>+base64(type || public key)}. */
    String vkey();

    /**
     * True when {@code signature} (without its key id) is this key's valid signature of the note
     * {@code text} (the text including its final newline, without the blank line). Never throws on
     * malformed signatures.
     */
    boolean verify(String text, byte[] signature);
}
