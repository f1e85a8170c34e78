package io.trailproof.core.note;

import java.util.Arrays;
import java.util.Base64;

/**
 * One signature line of a signed note: {@code — <key name> base64(key id || signature)}.
 *
 * @param name the key name (non-empty, no spaces, no {@code +})
 * @param keyId the 4-byte key id, big-endian
 * @param signature the signature bytes after the key id (their meaning depends on the key's type)
 */
public record NoteSignature(String name, int keyId, byte[] signature) {

    public NoteSignature {
        signature = signature.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    /** base64(key id || signature), the part after the name. */
    public String base64() {
        byte[] all = new byte[SignedNote.KEY_ID_LENGTH + signature.length];
        all[0] = (byte) (keyId >>> 24);
        all[1] = (byte) (keyId >>> 16);
        all[2] = (byte) (keyId >>> 8);
        all[3] = (byte) keyId;
        System.arraycopy(signature, 0, all, SignedNote.KEY_ID_LENGTH, signature.length);
        return Base64.getEncoder().encodeToString(all);
    }

    /** The whole line, with its final newline. */
    public String line() {
        return SignedNote.SIGNATURE_PREFIX + name + " " + base64() + "\n";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NoteSignature s && s.name.equals(name) && s.keyId == keyId
                && Arrays.equals(s.signature, signature);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * name.hashCode() + keyId) + Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return line().strip();
    }
}
