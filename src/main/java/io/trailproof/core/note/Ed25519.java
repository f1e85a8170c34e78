package io.trailproof.core.note;

import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.SecureRandomSpi;
import java.security.Signature;
import java.security.SignatureException;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.NamedParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;

/**
 * RFC 8032 Ed25519 over raw keys: a 32-byte seed (private) and a 32-byte encoded point (public).
 *
 * <p>Everything uses the JDK's own {@code Ed25519} (SunEC). The note formats need the public key of a
 * seed (a private key's text form holds only the seed, and its key id covers the public key), which
 * the JDK derives only in its key pair generator: RFC 8032 5.1.5 makes a key pair from 32 random
 * bytes, so the generator is handed a source of randomness that gives exactly the seed (the JDK draws
 * the private key with one call for 32 bytes; any other draw fails loudly rather than derive another
 * key). This keeps BouncyCastle, a signed jar whose loading and curve tables cost a server's start a
 * fifth of its CPU, out of every start; it is loaded only for RFC 3161 timestamps. Ed25519 is
 * deterministic: the same seed and message always give the same bytes.
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
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance(ALGORITHM);
            generator.initialize(NamedParameterSpec.ED25519, new SeedAsRandomness(seed));
            byte[] spki = generator.generateKeyPair().getPublic().getEncoded();
            if (spki.length != SPKI_PREFIX.length + KEY_LENGTH
                    || !Arrays.equals(spki, 0, SPKI_PREFIX.length, SPKI_PREFIX, 0, SPKI_PREFIX.length)) {
                throw new IllegalStateException("the JDK encoded an Ed25519 public key unexpectedly");
            }
            return Arrays.copyOfRange(spki, SPKI_PREFIX.length, spki.length);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519 is not available", e);
        }
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

    /** Randomness that is one seed: the 32 bytes of a private key, given once, and nothing else. */
    private static final class SeedAsRandomness extends SecureRandom {
        private static final long serialVersionUID = 1L;

        SeedAsRandomness(byte[] seed) {
            super(new Spi(seed.clone()), null);
        }

        private static final class Spi extends SecureRandomSpi {
            private static final long serialVersionUID = 1L;
            private byte[] seed;

            Spi(byte[] seed) {
                this.seed = seed;
            }

            @Override
            protected void engineSetSeed(byte[] ignored) {
                // the bytes given are the seed; nothing is mixed in
            }

            @Override
            protected void engineNextBytes(byte[] bytes) {
                if (seed == null || bytes.length != seed.length) {
                    throw new IllegalStateException("the key pair generator asked for other bytes than one 32-byte seed");
                }
                System.arraycopy(seed, 0, bytes, 0, seed.length);
                seed = null;
            }

            @Override
            protected byte[] engineGenerateSeed(int length) {
                throw new IllegalStateException("the key pair generator asked for a seed of its own");
            }
        }
    }

    private static void requireLength(byte[] key, String what) {
        if (key == null || key.length != KEY_LENGTH) {
            throw new IllegalArgumentException("an Ed25519 " + what + " is " + KEY_LENGTH + " bytes");
        }
    }
}
