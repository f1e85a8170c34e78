package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.event.EventTime;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The value types of the evidence format (src/site/evidence-format.md) as the verifier reads them from a member: a
 * string, a whole number, a hash (64 lowercase hex digits), a list of hashes, an ISO 8601 date-time.
 * Each answers null for a value that is missing or not of its type, so a checker states what it
 * expected instead of failing on it.
 */
final class FormatValues {
    private FormatValues() {}

    private static final HexFormat HEX = HexFormat.of();

    static String text(JsonNode node) {
        return node != null && node.isTextual() ? node.textValue() : null;
    }

    static String text(JsonNode parent, String name) {
        return parent == null ? null : text(parent.get(name));
    }

    static Long whole(JsonNode node) {
        return node != null && (node.isInt() || node.isLong()) ? node.longValue() : null;
    }

    static Long whole(JsonNode parent, String name) {
        return parent == null ? null : whole(parent.get(name));
    }

    static byte[] hash(JsonNode node) {
        String t = text(node);
        return EventHash.isHex(t) ? HEX.parseHex(t) : null;
    }

    /** Every element a hash, or null. */
    static List<byte[]> hashes(JsonNode array) {
        if (array == null || !array.isArray()) {
            return null;
        }
        List<byte[]> out = new ArrayList<>(array.size());
        for (JsonNode n : array) {
            byte[] h = hash(n);
            if (h == null) {
                return null;
            }
            out.add(h);
        }
        return out;
    }

    static Instant instant(String text) {
        if (text == null) {
            return null;
        }
        try {
            return EventTime.parseTimestamp(text);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }
}
