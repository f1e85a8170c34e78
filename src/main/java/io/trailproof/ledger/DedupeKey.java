package io.trailproof.ledger;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A dedupe key: its namespace and a SHA-256 digest of everything that scopes it (for an
 * {@code Idempotency-Key}: the caller's API key identity, the path and the key itself). Two keys
 * are equal when namespace and digest are.
 */
public record DedupeKey(byte namespace, byte[] digest) {

    public DedupeKey {
        if (digest.length != DedupeRecord.DIGEST_BYTES) {
            throw new IllegalArgumentException("a dedupe key digest is 32 bytes");
        }
        digest = digest.clone();
    }

    /**
     * The key named by {@code parts} within {@code namespace}: SHA-256 over the namespace byte and
     * each part as its UTF-8 length (4 bytes) and bytes, so that no two different part lists collide
     * by concatenation.
     */
    public static DedupeKey of(byte namespace, String... parts) {
        MessageDigest sha = sha256();
        sha.update(namespace);
        for (String p : parts) {
            byte[] b = p.getBytes(StandardCharsets.UTF_8);
            sha.update(ByteBuffer.allocate(4).putInt(b.length).array());
            sha.update(b);
        }
        return new DedupeKey(namespace, sha.digest());
    }

    /** SHA-256 of {@code content}: what a record compares a later request's content by. */
    public static byte[] contentDigest(byte[] content) {
        return sha256().digest(content);
    }

    long high() {
        return ByteBuffer.wrap(digest).getLong(0) ^ namespace;
    }

    long low() {
        return ByteBuffer.wrap(digest).getLong(8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DedupeKey k && k.namespace == namespace && Arrays.equals(k.digest, digest);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(digest) * 31 + namespace;
    }

    @Override
    public String toString() {
        return "DedupeKey[" + namespace + ":" + HexFormat.of().formatHex(digest, 0, 8) + "]";
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
