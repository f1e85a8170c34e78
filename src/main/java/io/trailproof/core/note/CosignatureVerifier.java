package io.trailproof.core.note;

import java.util.OptionalLong;

/**
 * A witness's Ed25519 cosignature v1 key (signature type 0x04): the signature is a timestamp and an
 * Ed25519 signature over {@link TlogCosignature#message}.
 */
public final class CosignatureVerifier extends Ed25519Verifier {

    public CosignatureVerifier(String name, byte[] publicKey) {
        super(name, TlogCosignature.TYPE_ED25519_V1, publicKey);
    }

    @Override
    public boolean verify(String text, byte[] signature) {
        OptionalLong time = TlogCosignature.timestamp(signature);
        if (time.isEmpty()) {
            return false;
        }
        return Ed25519.verify(key(), TlogCosignature.message(time.getAsLong(), text),
                TlogCosignature.ed25519Part(signature));
    }
}
