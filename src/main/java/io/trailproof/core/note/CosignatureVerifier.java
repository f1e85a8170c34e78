package io.trailproof.core.note;

import java.util.OptionalLong;

/**
 * A witness's Ed25519 cosignature v1 key (signature type 0x04): the signature is a timestamp and an
 * Ed25519 signature over {@link TlogCosignature#message}.
 */
public record CosignatureVerifier(String name, byte[] publicKey) implements NoteVerifier {

    public CosignatureVerifier {
        publicKey = publicKey.clone();
    }

    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    @Override
    public int keyId() {
        return SignedNote.keyId(name, TlogCosignature.TYPE_ED25519_V1, publicKey);
    }

    @Override
    public String vkey() {
        return VerifierKey.format(name, TlogCosignature.TYPE_ED25519_V1, publicKey);
    }

    @Override
    public boolean verify(String text, byte[] signature) {
        OptionalLong time = TlogCosignature.timestamp(signature);
        if (time.isEmpty()) {
            return false;
        }
        return Ed25519.verify(publicKey, TlogCosignature.message(time.getAsLong(), text),
                TlogCosignature.ed25519Part(signature));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CosignatureVerifier v && v.vkey().equals(vkey());
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
