package io.trailproof.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.trailproof.core.event.EventFields;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the evidence package needs to know of a stored payload: whether it is one JSON document and
 * the string value of its top-level {@code id}, both exactly as Jackson's default parser answers
 * them. A stored event is plain, strictly valid JSON, so a single pass over its bytes answers for it;
 * anything that pass does not positively recognise (escapes in a top-level name or in the id, a BOM,
 * a top level that is not an object, damage of any kind, sizes near Jackson's limits) is answered by
 * Jackson itself. The pass accepts only what Jackson accepts, so the two never disagree.
 */
final class PayloadFacts {

    private static final JsonFactory FACTORY = new JsonFactory();
    /** Returned by the scan when it cannot vouch for the answer. */
    private static final String UNSURE = new String("unsure");
    /** Returned by the scan for a valid object without a top-level string id. */
    private static final String NO_ID = new String("no id");
    // Well inside Jackson's default limits (nesting 1000, number 1000 chars, name 50,000 chars).
    private static final int MAX_SCAN_BYTES = 1 << 20;
    private static final int MAX_DEPTH = 200;
    private static final int MAX_NUMBER_BYTES = 100;
    private static final int MAX_NAME_BYTES = 1000;
    private static final byte[] ID = EventFields.ID.getBytes(StandardCharsets.US_ASCII);
    /** Set by {@link #string} in the end it returns when the string has an escape or a non-ASCII byte. */
    private static final int ESCAPED = 1 << 30;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    // Scan states: what may come next.
    private static final int FIRST_MEMBER = 0; // a name or '}' (just after '{')
    private static final int MEMBER = 1;       // a name (after ',' in an object)
    private static final int FIRST_VALUE = 2;  // a value or ']' (just after '[')
    private static final int VALUE = 3;        // a value (after ':' or after ',' in an array)
    private static final int AFTER_VALUE = 4;  // ',' or the end of the open container

    private PayloadFacts() {
    }

    /**
     * True when this class vouches that the payload is one JSON object in well-formed UTF-8, so that
     * its bytes are its text; false says nothing (ask {@link #jacksonIsJson}).
     */
    static boolean isPlainJson(byte[] payload) {
        return scan(payload) != UNSURE;
    }

    /** The payload's top-level {@code id} when it is a string, or null when there is none or it is not JSON. */
    static String idOf(byte[] payload) {
        String id = scan(payload);
        if (id == UNSURE) {
            return jacksonIdOf(payload);
        }
        return id == NO_ID ? null : id;
    }

    /** True when the payload is exactly one JSON value (anything but whitespace after it is refused). */
    static boolean jacksonIsJson(byte[] payload) {
        try (JsonParser p = FACTORY.createParser(payload)) {
            if (p.nextToken() == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    /** {@link #idOf} as Jackson answers it. */
    static String jacksonIdOf(byte[] payload) {
        try (JsonParser p = FACTORY.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String id = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals(EventFields.ID) && value == JsonToken.VALUE_STRING) {
                    id = p.getText();
                } else {
                    p.skipChildren();
                }
            }
            return p.nextToken() == null ? id : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * One pass over a top-level object in strict RFC 8259 syntax: the last top-level {@code id} whose
     * value is a string without escapes or non-ASCII bytes, {@link #NO_ID}, or {@link #UNSURE}.
     */
    static String scan(byte[] b) {
        int n = b.length;
        if (n > MAX_SCAN_BYTES) {
            return UNSURE;
        }
        int i = skipSpace(b, 0);
        if (i >= n || b[i] != '{') {
            return UNSURE;
        }
        String id = NO_ID;
        // Bit d set when the container open at depth d is an object; depth 1 is the top-level object.
        long[] objects = new long[(MAX_DEPTH >>> 6) + 1];
        int depth = 1;
        objects[0] = 1L << 1;
        int state = FIRST_MEMBER;
        boolean idValue = false;
        i++;
        while (true) {
            i = skipSpace(b, i);
            if (i >= n) {
                return UNSURE;
            }
            byte c = b[i];
            switch (state) {
                case FIRST_MEMBER, MEMBER -> {
                    if (c == '}' && state == FIRST_MEMBER) {
                        i++;
                        depth--;
                        state = AFTER_VALUE;
                    } else {
                        if (c != '"') {
                            return UNSURE;
                        }
                        int r = string(b, i, MAX_NAME_BYTES);
                        if (r < 0) {
                            return UNSURE;
                        }
                        int end = r & ~ESCAPED;
                        if (depth == 1) {
                            if ((r & ESCAPED) != 0 && hasBackslash(b, i + 1, end - 1)) {
                                return UNSURE; // an escaped name might read "id"
                            }
                            idValue = Arrays.equals(b, i + 1, end - 1, ID, 0, ID.length);
                        }
                        i = skipSpace(b, end);
                        if (i >= n || b[i] != ':') {
                            return UNSURE;
                        }
                        i++;
                        state = VALUE;
                    }
                }
                case FIRST_VALUE, VALUE -> {
                    if (c == ']' && state == FIRST_VALUE) {
                        i++;
                        depth--;
                        state = AFTER_VALUE;
                    } else if (c == '{' || c == '[') {
                        if (++depth > MAX_DEPTH) {
                            return UNSURE;
                        }
                        if (c == '{') {
                            objects[depth >>> 6] |= 1L << depth;
                            state = FIRST_MEMBER;
                        } else {
                            objects[depth >>> 6] &= ~(1L << depth);
                            state = FIRST_VALUE;
                        }
                        i++;
                        idValue = false;
                    } else {
                        int r = scalar(b, i);
                        if (r < 0) {
                            return UNSURE;
                        }
                        int end = r & ~ESCAPED;
                        if (idValue && depth == 1 && c == '"') {
                            if ((r & ESCAPED) != 0) {
                                return UNSURE;
                            }
                            id = new String(b, i + 1, end - i - 2, StandardCharsets.US_ASCII);
                        }
                        idValue = false;
                        i = end;
                        state = AFTER_VALUE;
                    }
                }
                default -> { // AFTER_VALUE: depth is the container the value is in, 0 after the top level closed
                    if (depth == 0) {
                        return UNSURE; // anything after the document
                    }
                    boolean inObject = (objects[depth >>> 6] & (1L << depth)) != 0;
                    if (c == ',') {
                        i++;
                        state = inObject ? MEMBER : VALUE;
                    } else if (c == (inObject ? '}' : ']')) {
                        i++;
                        depth--;
                        if (depth == 0) {
                            return skipSpace(b, i) == n ? id : UNSURE;
                        }
                    } else {
                        return UNSURE;
                    }
                }
            }
            if (depth == 0) {
                return skipSpace(b, i) == n ? id : UNSURE; // "{}" closed by FIRST_MEMBER
            }
        }
    }

    private static int skipSpace(byte[] b, int i) {
        while (i < b.length) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            i++;
        }
        return i;
    }

    private static boolean hasBackslash(byte[] b, int from, int to) {
        for (int j = from; j < to; j++) {
            if (b[j] == '\\') {
                return true;
            }
        }
        return false;
    }

    /**
     * The end (exclusive) of the string, number or literal at {@code i}, followed by a delimiter,
     * flagged as {@link #string} flags it; -1 if not one.
     */
    private static int scalar(byte[] b, int i) {
        byte c = b[i];
        int end;
        int flags = 0;
        if (c == '"') {
            end = string(b, i, Integer.MAX_VALUE);
            if (end >= 0) {
                flags = end & ESCAPED;
                end &= ~ESCAPED;
            }
        } else if (c == 't') {
            end = literal(b, i, "true");
        } else if (c == 'f') {
            end = literal(b, i, "false");
        } else if (c == 'n') {
            end = literal(b, i, "null");
        } else {
            end = number(b, i);
        }
        if (end < 0) {
            return -1;
        }
        if (end < b.length) {
            byte d = b[end];
            if (d != ',' && d != '}' && d != ']' && d != ' ' && d != '\n' && d != '\r' && d != '\t') {
                return -1;
            }
        }
        return end | flags;
    }

    private static int literal(byte[] b, int i, String word) {
        if (i + word.length() > b.length) {
            return -1;
        }
        for (int j = 0; j < word.length(); j++) {
            if (b[i + j] != word.charAt(j)) {
                return -1;
            }
        }
        return i + word.length();
    }

    /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, at most {@link #MAX_NUMBER_BYTES} long. */
    private static int number(byte[] b, int i) {
        int n = b.length;
        int start = i;
        if (i < n && b[i] == '-') {
            i++;
        }
        if (i >= n) {
            return -1;
        }
        if (b[i] == '0') {
            i++;
        } else if (b[i] >= '1' && b[i] <= '9') {
            i = digits(b, i);
        } else {
            return -1;
        }
        if (i < n && b[i] == '.') {
            int from = ++i;
            i = digits(b, i);
            if (i == from) {
                return -1;
            }
        }
        if (i < n && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < n && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int from = i;
            i = digits(b, i);
            if (i == from) {
                return -1;
            }
        }
        return i - start <= MAX_NUMBER_BYTES ? i : -1;
    }

    private static int digits(byte[] b, int i) {
        while (i < b.length && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    /**
     * The end (exclusive, after the closing quote) of the string starting at {@code i}, with
     * {@link #ESCAPED} set when it holds an escape or a non-ASCII byte; or -1 unless it holds at most
     * {@code maxBytes} bytes of well-formed UTF-8 with no control character and only the escapes of
     * RFC 8259.
     */
    private static int string(byte[] b, int i, int maxBytes) {
        int n = b.length;
        int limit = (int) Math.min(n, (long) i + 1 + maxBytes + 1);
        int j = i + 1;
        int flags = 0;
        while (true) {
            // Eight bytes at a time, straight to the first one that needs a look.
            while (j + 8 <= limit) {
                long flagged = special((long) LONG.get(b, j));
                if (flagged != 0) {
                    j += Long.numberOfTrailingZeros(flagged) >>> 3;
                    break;
                }
                j += 8;
            }
            if (j >= limit) {
                return -1;
            }
            int c = b[j];
            if (c == '"') {
                return (j + 1) | flags;
            }
            if (c == '\\') {
                flags = ESCAPED;
                if (j + 1 >= n) {
                    return -1;
                }
                byte e = b[j + 1];
                if (e == 'u') {
                    if (j + 6 > n) {
                        return -1;
                    }
                    for (int k = j + 2; k < j + 6; k++) {
                        if (Character.digit(b[k], 16) < 0) {
                            return -1;
                        }
                    }
                    j += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
                        || e == 't') {
                    j += 2;
                } else {
                    return -1;
                }
            } else if (c >= 0x20) {
                j++;
            } else if (c >= 0) {
                return -1; // a control character
            } else {
                flags = ESCAPED;
                j = utf8(b, j);
                if (j < 0) {
                    return -1;
                }
            }
        }
    }

    /**
     * The high bit of each of the eight bytes (little-endian) that is a quote, a backslash, a control
     * character or not ASCII. Bytes above a flagged one may be flagged too, but the lowest flagged
     * byte is always such a byte, and none is missed below it.
     */
    private static long special(long v) {
        long notAscii = v;
        long control = v - 0x2020202020202020L;
        long quote = v ^ 0x2222222222222222L;
        long backslash = v ^ 0x5c5c5c5c5c5c5c5cL;
        return (notAscii | control & ~v | zeroByte(quote) | zeroByte(backslash)) & 0x8080808080808080L;
    }

    /** The high bit of each zero byte of {@code x}; bytes above the lowest zero byte may be flagged too. */
    private static long zeroByte(long x) {
        return (x - 0x0101010101010101L) & ~x;
    }

    /** The index after the well-formed UTF-8 sequence of 2 to 4 bytes at {@code i}, or -1. */
    private static int utf8(byte[] b, int i) {
        int c = b[i] & 0xff;
        int need;
        int min;
        int cp;
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            min = 0x80;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            min = 0x800;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            min = 0x10000;
            cp = c & 0x07;
        } else {
            return -1;
        }
        if (i + need >= b.length) {
            return -1;
        }
        for (int k = 1; k <= need; k++) {
            int d = b[i + k] & 0xff;
            if ((d & 0xc0) != 0x80) {
                return -1;
            }
            cp = (cp << 6) | (d & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            return -1;
        }
        return i + need + 1;
    }
}
