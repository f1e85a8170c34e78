package io.trailproof.core.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The event hash of src/site/events.md#event-hash: SHA-256 over the RFC 8785 form of the stored event without its
 * {@code hash} and {@code log_index} fields. Anyone can recompute it from the JSON the API returns.
 */
public final class EventHash {
    private EventHash() {}

    /** Bytes of a SHA-256 digest. */
    public static final int LENGTH = 32;

    private static final HexFormat HEX = HexFormat.of();

    /** The hash of a stored event; any {@code hash} and {@code log_index} in it are left out. */
    public static byte[] of(JsonNode storedEvent) {
        ObjectNode covered = JsonNodeFactory.instance.objectNode();
        covered.setAll((ObjectNode) storedEvent);
        covered.remove(EventFields.HASH);
        covered.remove(EventFields.LOG_INDEX);
        return sha256(Rfc8785.canonicalize(covered));
    }

    public static byte[] sha256(byte[] data) {
        return newDigest().digest(data);
    }

    /** A fresh SHA-256 digest, for hashing a payload in pieces. */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    }

    /** Lowercase hex, the form of {@code hash} and {@code prev_hash} on the wire. */
    public static String toHex(byte[] hash) {
        return HEX.formatHex(hash);
    }

    /** Whether {@code text} is a hash as the wire carries it: 64 lowercase hex digits. */
    public static boolean isHex(String text) {
        if (text == null || text.length() != 2 * LENGTH) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** The raw bytes of a hash in wire form; the caller checked {@link #isHex}. */
    static byte[] fromHex(String hex) {
        return HEX.parseHex(hex);
    }
}
