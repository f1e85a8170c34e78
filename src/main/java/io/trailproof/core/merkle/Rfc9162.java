package io.trailproof.core.merkle;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The hashing rules of RFC 9162 section 2.1 with SHA-256, and the only home of its constants.
 *
 * <p>In this product the leaf for log index i is the 32 raw bytes of that event's hash (src/site/concepts.md#the-merkle-tree),
 * but {@link #leafHash} accepts any byte string, as the RFC does. Every method returns a fresh
 * array that the caller owns.
 */
public final class Rfc9162 {
    /** Domain-separation prefix of a leaf hash, RFC 9162 2.1.1. */
    public static final byte LEAF_PREFIX = 0x00;
    /** Domain-separation prefix of an interior node hash, RFC 9162 2.1.1. */
    public static final byte NODE_PREFIX = 0x01;
    /** Length in bytes of every hash in the tree (SHA-256). */
    public static final int HASH_LENGTH = 32;

    private static final String ALGORITHM = "SHA-256";
    // Cloning a prepared digest avoids the provider lookup of getInstance on every hash.
    private static final MessageDigest PROTOTYPE = newDigest();

    private Rfc9162() {}

    /** SHA-256(0x00 || leaf): the RFC 9162 leaf hash of an arbitrary leaf value. */
    public static byte[] leafHash(byte[] leaf) {
        return leafHash(digest(), leaf);
    }

    /** {@link #leafHash(byte[])} with a SHA-256 digest the caller keeps (it is reset on return). */
    public static byte[] leafHash(MessageDigest md, byte[] leaf) {
        md.reset();
        md.update(LEAF_PREFIX);
        md.update(leaf);
        return md.digest();
    }

    /** SHA-256(0x01 || left || right): the RFC 9162 hash of an interior node. */
    public static byte[] nodeHash(byte[] left, byte[] right) {
        MessageDigest md = digest();
        md.update(NODE_PREFIX);
        md.update(left);
        md.update(right);
        return md.digest();
    }

    /** The root of the empty tree: SHA-256 of the empty string. */
    public static byte[] emptyRoot() {
        return digest().digest();
    }

    /** True when {@code hash} is non-null and exactly {@link #HASH_LENGTH} bytes long. */
    public static boolean isHash(byte[] hash) {
        return hash != null && hash.length == HASH_LENGTH;
    }

    private static MessageDigest digest() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return newDigest();
        }
    }

    private static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance(ALGORITHM);
        } catch (NoSuchAlgorithmException e) {
            // Every Java platform is required to provide SHA-256.
            throw new IllegalStateException(ALGORITHM + " is not available", e);
        }
    }
}
