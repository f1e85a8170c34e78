package io.trailproof.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.erdtman.jcs.NumberToJSON;

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS) over a Jackson tree.
 *
 * <p>Object members are ordered by the UTF-16 code units of their names, strings use the minimal
 * RFC 8785 escaping, and every number, whatever node type holds it, is written as its IEEE-754
 * double value in ECMAScript Number-to-String form. The output is what the event hash covers
 * (CONTRACT 2.3), so it must match any other RFC 8785 implementation byte for byte.
 *
 * <p>The tree must hold only JSON values: strings without lone surrogates and finite numbers. A tree
 * from {@link StrictJson#parse} always does; anything else is a programming error and raises
 * {@link IllegalArgumentException}.
 */
public final class Rfc8785 {

    /** Largest integer below which every integer is exactly a double and prints as its digits. */
    private static final long MAX_EXACT_INTEGER = 1L << 53;

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private Rfc8785() {}

    /** The canonical form as UTF-8 bytes. */
    public static byte[] canonicalize(JsonNode node) {
        CanonicalWriter out = new CanonicalWriter(256);
        out.value(node);
        return out.toByteArray();
    }

    /** The canonical form as a string. */
    public static String canonicalString(JsonNode node) {
        return new String(canonicalize(node), StandardCharsets.UTF_8);
    }

    /**
     * The ECMAScript Number-to-String form of {@code value}, as RFC 8785 section 3.2.2.3 requires.
     *
     * @throws IllegalArgumentException for NaN and infinities, which JSON cannot express
     */
    public static String numberToString(double value) {
        if (value == Math.rint(value) && Math.abs(value) <= MAX_EXACT_INTEGER) {
            return Long.toString((long) value); // also turns -0 into "0", as ECMAScript does
        }
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("JSON has no representation for " + value);
        }
        try {
            return NumberToJSON.serializeNumber(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("JSON has no representation for " + value, e);
        }
    }

    /** A growable byte buffer that writes canonical JSON; one instance per canonicalization. */
    private static final class CanonicalWriter {
        private byte[] buf;
        private int len;

        CanonicalWriter(int initialCapacity) {
            buf = new byte[initialCapacity];
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, len);
        }

        private void ensure(int extra) {
            int needed = len + extra;
            if (needed > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(needed, buf.length << 1));
            }
        }

        private void put(byte b) {
            ensure(1);
            buf[len++] = b;
        }

        private void put(byte[] bytes) {
            ensure(bytes.length);
            System.arraycopy(bytes, 0, buf, len, bytes.length);
            len += bytes.length;
        }

        private void putAscii(String s) {
            int n = s.length();
            ensure(n);
            for (int i = 0; i < n; i++) {
                buf[len++] = (byte) s.charAt(i);
            }
        }

        void value(JsonNode node) {
            switch (node.getNodeType()) {
                case OBJECT -> object(node);
                case ARRAY -> array(node);
                case STRING -> string(node.textValue());
                case NUMBER -> number(node);
                case BOOLEAN -> put(node.booleanValue() ? TRUE : FALSE);
                case NULL -> put(NULL);
                default -> throw new IllegalArgumentException(
                        "not a JSON value: " + node.getNodeType() + " node");
            }
        }

        private void object(JsonNode node) {
            List<Map.Entry<String, JsonNode>> members = new ArrayList<>(node.properties());
            if (members.size() > 1) {
                // UTF-16 code unit order (RFC 8785 section 3.2.3) is exactly String.compareTo.
                members.sort(Map.Entry.comparingByKey());
            }
            put((byte) '{');
            for (int i = 0; i < members.size(); i++) {
                if (i > 0) {
                    put((byte) ',');
                }
                Map.Entry<String, JsonNode> member = members.get(i);
                string(member.getKey());
                put((byte) ':');
                value(member.getValue());
            }
            put((byte) '}');
        }

        private void array(JsonNode node) {
            put((byte) '[');
            int n = node.size();
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    put((byte) ',');
                }
                value(node.get(i));
            }
            put((byte) ']');
        }

        private void number(JsonNode node) {
            if (node.canConvertToExactIntegral() && node.canConvertToLong()) {
                long v = node.longValue();
                if (v >= -MAX_EXACT_INTEGER && v <= MAX_EXACT_INTEGER) {
                    putAscii(Long.toString(v));
                    return;
                }
            }
            putAscii(numberToString(node.doubleValue()));
        }

        private void string(String s) {
            int n = s.length();
            ensure(n + 2);
            byte[] b = buf;
            int p = len;
            b[p++] = '"';
            for (int i = 0; i < n; i++) {
                if (p + 7 > b.length) { // room for the longest form of one char, a six-byte escape, and the quote
                    len = p;
                    ensure(7 + (n - i) * 2);
                    b = buf;
                }
                char c = s.charAt(i);
                if (c < 0x80) {
                    if (c >= 0x20 && c != '"' && c != '\\') {
                        b[p++] = (byte) c;
                        continue;
                    }
                    b[p++] = '\\';
                    switch (c) {
                        case '"' -> b[p++] = '"';
                        case '\\' -> b[p++] = '\\';
                        case '\b' -> b[p++] = 'b';
                        case '\f' -> b[p++] = 'f';
                        case '\n' -> b[p++] = 'n';
                        case '\r' -> b[p++] = 'r';
                        case '\t' -> b[p++] = 't';
                        default -> {
                            b[p++] = 'u';
                            b[p++] = '0';
                            b[p++] = '0';
                            b[p++] = HEX[c >> 4];
                            b[p++] = HEX[c & 0xF];
                        }
                    }
                } else if (c < 0x800) {
                    b[p++] = (byte) (0xC0 | (c >> 6));
                    b[p++] = (byte) (0x80 | (c & 0x3F));
                } else if (Character.isSurrogate(c)) {
                    char low = i + 1 < n ? s.charAt(i + 1) : 0;
                    if (!Character.isHighSurrogate(c) || !Character.isLowSurrogate(low)) {
                        throw new IllegalArgumentException(
                                "string has a lone surrogate U+" + Integer.toHexString(c).toUpperCase()
                                        + " at index " + i + "; RFC 8785 needs valid Unicode");
                    }
                    int cp = Character.toCodePoint(c, low);
                    i++;
                    b[p++] = (byte) (0xF0 | (cp >> 18));
                    b[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                    b[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                    b[p++] = (byte) (0x80 | (cp & 0x3F));
                } else {
                    b[p++] = (byte) (0xE0 | (c >> 12));
                    b[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                    b[p++] = (byte) (0x80 | (c & 0x3F));
                }
            }
            b[p++] = '"';
            len = p;
        }
    }
}
