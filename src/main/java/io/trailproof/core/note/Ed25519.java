package io.trailproof.core.note;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.NamedParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;

/**
 * RFC 8032 Ed25519 over raw keys: a 32-byte seed (private) and a 32-byte encoded point (public).
 *
 * <p>Signing and verifying use the JDK's own {@code Ed25519} signature (SunEC). The JDK has no way
 * to derive the public key from a seed, which the note formats need (a private key's text form
 * holds only the seed, and its key id covers the public key), so that one step uses BouncyCastle's
 * lightweight API. Ed25519 is deterministic: the same seed and message always give the same bytes.
 */
public final class Ed25519 {
    /** Length of a seed (private key), of a public key, RFC 8032 5.1.5. */
    public static final int KEY_LENGTH = 32;
    /** Length of a signature, RFC 8032 5.1.6. */
    public static final int SIGNATURE_LENGTH = 64;

    private static final String ALGORITHM = "Ed25519";
    // DER prefix of a SubjectPublicKeyInfo for id-Ed25519 (RFC 8410 section 4), followed by the 32 key bytes.
    private static final byte[] SPKI_PREFIX = {
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
    };

    private Ed25519() {}

    /** The public key of {@code seed}; throws {@link IllegalArgumentException} when it is not 32 bytes. */
    public static byte[] publicKey(byte[] seed) {
        requireLength(seed, "seed");
        return new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
    }

    /** The signature of {@code message} with {@code seed}. */
    public static byte[] sign(byte[] seed, byte[] message) {
        requireLength(seed, "seed");
        try {
            PrivateKey key = KeyFactory.getInstance(ALGORITHM)
                    .generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, seed));
            Signature s = Signature.getInstance(ALGORITHM);
            s.initSign(key);
            s.update(message);
            return s.sign();
        } catch (GeneralSecurityException e) {
            // Every JDK since 15 has Ed25519, and a 32-byte seed is always a valid key.
            throw new IllegalStateException("Ed25519 signing failed", e);
        }
    }

    /**
     * True when {@code signature} is a valid signature of {@code message} by {@code publicKey}.
     * Never throws on malformed input (wrong lengths, a point not on the curve): that is simply not valid.
     */
    public static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey == null || publicKey.length != KEY_LENGTH
                || signature == null || signature.length != SIGNATURE_LENGTH) {
            return false;
        }
        try {
            byte[] spki = Arrays.copyOf(SPKI_PREFIX, SPKI_PREFIX.length + KEY_LENGTH);
            System.arraycopy(publicKey, 0, spki, SPKI_PREFIX.length, KEY_LENGTH);
            PublicKey key = KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(spki));
            Signature s = Signature.getInstance(ALGORITHM);
            s.initVerify(key);
            s.update(message);
            return s.verify(signature);
        } catch (SignatureException | InvalidKeySpecException
                | InvalidKeyException e) {
            return false;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 is not available", e);
        }
    }

    private static void requireLength(byte[] key, String what) {
        if (key == null || key.length != KEY_LENGTH) {
            throw new IllegalArgumentException("an Ed25519 " + what + " is " + KEY_LENGTH + " bytes");
        }
    }
}
