package io.trailproof.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
 * (src/site/events.md#event-hash), so it must match any other RFC 8785 implementation byte for byte.
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

    /**
     * The canonical form of an object, kept member by member so that members can be added later
     * without writing the others again (see {@link CanonicalObject#with}).
     *
     * @throws IllegalArgumentException when {@code node} is not an object
     */
    public static CanonicalObject canonicalObject(JsonNode node) {
        if (!node.isObject()) {
            throw new IllegalArgumentException("not a JSON object: " + node.getNodeType() + " node");
        }
        CanonicalWriter out = new CanonicalWriter(1024); // a typical event fits without growing
        List<Map.Entry<String, JsonNode>> members = out.object(node, true);
        String[] keys = new String[members.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = members.get(i).getKey();
        }
        return new CanonicalObject(out.toByteArray(), keys, out.memberStarts);
    }

    /**
     * The RFC 8785 form of an object, and where each of its members starts. {@link #with} gives the
     * canonical form of the same object with more members, byte for byte what canonicalising the
     * larger object would give, because members are independent and only their order depends on the
     * other keys.
     */
    public static final class CanonicalObject {
        private final byte[] bytes;
        private final String[] keys;
        private final int[] starts;

        private CanonicalObject(byte[] bytes, String[] keys, int[] starts) {
            this.bytes = bytes;
            this.keys = keys;
            this.starts = starts;
        }

        /** The canonical form; the internal array, which must not be modified. */
        public byte[] bytes() {
            return bytes;
        }

        /**
         * The canonical form of this object with the two given members added.
         *
         * @throws IllegalArgumentException when a key is already a member, or both keys are equal
         */
        public byte[] with(String key1, JsonNode value1, String key2, JsonNode value2) {
            if (key1.equals(key2)) {
                throw new IllegalArgumentException("member " + key1 + " added twice");
            }
            if (key1.compareTo(key2) > 0) {
                return with(key2, value2, key1, value1);
            }
            int at1 = insertionPoint(key1);
            int at2 = insertionPoint(key2);
            CanonicalWriter out = new CanonicalWriter(bytes.length + 128);
            out.put((byte) '{');
            boolean first = true;
            for (int i = 0; i <= keys.length; i++) {
                if (i == at1) {
                    first = out.member(first, key1, value1);
                }
                if (i == at2) {
                    first = out.member(first, key2, value2);
                }
                if (i < keys.length) {
                    int end = i + 1 < keys.length ? starts[i + 1] - 1 : bytes.length - 1;
                    if (!first) {
                        out.put((byte) ',');
                    }
                    out.put(bytes, starts[i], end - starts[i]);
                    first = false;
                }
            }
            out.put((byte) '}');
            return out.toByteArray();
        }

        /** The index of the first member whose key sorts after {@code key}. */
        private int insertionPoint(String key) {
            int i = Arrays.binarySearch(keys, key);
            if (i >= 0) {
                throw new IllegalArgumentException("member " + key + " is already present");
            }
            return -i - 1;
        }
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

    /** The largest working buffer a thread keeps between canonicalizations; larger ones are left to the collector. */
    static final int MAX_KEPT_BUFFER = 16 * 1024;

    /**
     * Each thread's working buffer, taken by a writer while it writes and handed back by
     * {@link CanonicalWriter#toByteArray}: only the result is a new array, so ingesting an event
     * allocates one array for its canonical form instead of three. A writer that finds none (or one
     * too small) allocates its own.
     */
    private static final ThreadLocal<byte[]> KEPT_BUFFER = new ThreadLocal<>();

    /** A growable byte buffer that writes canonical JSON; one instance per canonicalization. */
    private static final class CanonicalWriter {
        private byte[] buf;
        private int len;
        /** Where each member of the outermost object starts, when {@link #object(JsonNode, boolean)} records it. */
        private int[] memberStarts;

        CanonicalWriter(int initialCapacity) {
            byte[] kept = KEPT_BUFFER.get();
            if (kept != null && kept.length >= initialCapacity) {
                KEPT_BUFFER.remove(); // taken: a canonicalization nested in this one gets its own
                buf = kept;
            } else {
                buf = new byte[initialCapacity];
            }
        }

        /** The bytes written, in a new array; the working buffer goes back to the thread. */
        byte[] toByteArray() {
            byte[] out = Arrays.copyOf(buf, len);
            if (buf.length <= MAX_KEPT_BUFFER) {
                KEPT_BUFFER.set(buf);
            }
            buf = null;
            return out;
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
            put(bytes, 0, bytes.length);
        }

        private void put(byte[] bytes, int from, int count) {
            ensure(count);
            System.arraycopy(bytes, from, buf, len, count);
            len += count;
        }

        /** Writes one member, preceded by a comma unless it is the first; returns false (no longer first). */
        private boolean member(boolean first, String key, JsonNode value) {
            if (!first) {
                put((byte) ',');
            }
            string(key);
            put((byte) ':');
            value(value);
            return false;
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
                case OBJECT -> object(node, false);
                case ARRAY -> array(node);
                case STRING -> string(node.textValue());
                case NUMBER -> number(node);
                case BOOLEAN -> put(node.booleanValue() ? TRUE : FALSE);
                case NULL -> put(NULL);
                default -> throw new IllegalArgumentException(
                        "not a JSON value: " + node.getNodeType() + " node");
            }
        }

        private List<Map.Entry<String, JsonNode>> object(JsonNode node, boolean recordStarts) {
            List<Map.Entry<String, JsonNode>> members = sortedMembers(node);
            if (recordStarts) {
                memberStarts = new int[members.size()];
            }
            put((byte) '{');
            for (int i = 0; i < members.size(); i++) {
                if (i > 0) {
                    put((byte) ',');
                }
                if (recordStarts) {
                    memberStarts[i] = len;
                }
                Map.Entry<String, JsonNode> member = members.get(i);
                string(member.getKey());
                put((byte) ':');
                value(member.getValue());
            }
            put((byte) '}');
            return members;
        }

        /**
         * The members in UTF-16 code unit order (RFC 8785 section 3.2.3), which is exactly
         * String.compareTo. Objects here have a few members, often already in order: an insertion
         * sort over one array is cheaper for them than a list copy and a merge sort.
         */
        @SuppressWarnings("unchecked")
        private static List<Map.Entry<String, JsonNode>> sortedMembers(JsonNode node) {
            Map.Entry<String, JsonNode>[] a = new Map.Entry[node.size()];
            int n = 0;
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                a[n++] = e;
            }
            if (n > 32) {
                Arrays.sort(a, 0, n, Map.Entry.comparingByKey());
            } else {
                for (int i = 1; i < n; i++) {
                    Map.Entry<String, JsonNode> e = a[i];
                    String key = e.getKey();
                    int j = i - 1;
                    while (j >= 0 && a[j].getKey().compareTo(key) > 0) {
                        a[j + 1] = a[j];
                        j--;
                    }
                    a[j + 1] = e;
                }
            }
            return Arrays.asList(a);
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
