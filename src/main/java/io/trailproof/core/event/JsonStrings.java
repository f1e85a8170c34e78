package io.trailproof.core.event;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The strings of {@link MemberScanner}: where a JSON string in UTF-8 bytes ends, with every byte of
 * it checked as Jackson checks it, and its decoded text. Stepping over a string is most of the
 * scanner's work (inputs and outputs are mostly text), so plain ASCII is skipped eight bytes at a
 * time. Refusals are the scanner's {@link IllegalArgumentException}.
 */
final class JsonStrings {

    /** Set by {@link #end} in the end it returns when the string holds an escape. */
    static final int ESCAPED = 1 << 30;
    /** Set by {@link #end} in the end it returns when the string holds a byte beyond ASCII. */
    static final int NON_ASCII = 1 << 29;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private JsonStrings() {
    }

    /**
     * Refuses a name (the bytes between its quotes, checked by {@link #end}) with an escaped
     * surrogate that is not half of a pair: Jackson refuses such names, though it takes such values.
     */
    static void checkNameSurrogates(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            if (b[i] != '\\') {
                i++;
                continue;
            }
            if (b[i + 1] != 'u') {
                i += 2;
                continue;
            }
            int c = unicodeEscape(b, i);
            i += 6;
            if (Character.isLowSurrogate((char) c)) {
                throw MemberScanner.malformed("a name with a lone surrogate", i - 6);
            }
            if (Character.isHighSurrogate((char) c)) {
                if (i + 6 > to || b[i] != '\\' || b[i + 1] != 'u'
                        || !Character.isLowSurrogate((char) unicodeEscape(b, i))) {
                    throw MemberScanner.malformed("a name with a lone surrogate", i - 6);
                }
                i += 6;
            }
        }
    }

    /**
     * The end (exclusive, after the closing quote) of the string at {@code quote}, below
     * {@code limit}, with
     * {@link #ESCAPED} and {@link #NON_ASCII} set as it holds escapes and bytes beyond ASCII; refused
     * unless it holds well-formed UTF-8 with no control character and only the escapes of RFC 8259.
     */
    static int end(byte[] b, int quote, int limit) {
        int j = quote + 1;
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
                throw MemberScanner.malformed("a string does not end", quote);
            }
            int c = b[j];
            if (c == '"') {
                return (j + 1) | flags;
            }
            if (c == '\\') {
                flags |= ESCAPED;
                if (j + 1 >= limit) {
                    throw MemberScanner.malformed("a string does not end", quote);
                }
                byte e = b[j + 1];
                if (e == 'u') {
                    if (j + 6 > limit || unicodeEscape(b, j) < 0) {
                        throw MemberScanner.malformed("a bad \\u escape", j);
                    }
                    j += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
                        || e == 't') {
                    j += 2;
                } else {
                    throw MemberScanner.malformed("a bad escape", j);
                }
            } else if (c >= 0x20) {
                j++;
            } else if (c >= 0) {
                throw MemberScanner.malformed("a control character in a string", j);
            } else {
                flags |= NON_ASCII;
                j = endOfUtf8(b, j, limit);
            }
        }
    }

    /**
     * The high bit of each of the eight bytes (little-endian) that is a quote, a backslash, a control
     * character or not ASCII. Bytes above a flagged one may be flagged too, but the lowest flagged
     * byte is always such a byte, and none is missed below it.
     */
    private static long special(long v) {
        long control = v - 0x2020202020202020L;
        return (v | control & ~v | zeroByte(v ^ 0x2222222222222222L) | zeroByte(v ^ 0x5c5c5c5c5c5c5c5cL))
                & 0x8080808080808080L;
    }

    /** The high bit of each zero byte of {@code x}; bytes above the lowest zero byte may be flagged too. */
    private static long zeroByte(long x) {
        return (x - 0x0101010101010101L) & ~x;
    }

    /** The index after the well-formed UTF-8 sequence of 2 to 4 bytes at {@code i} (RFC 3629). */
    private static int endOfUtf8(byte[] b, int i, int limit) {
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
            throw MemberScanner.malformed("a string that is not UTF-8", i);
        }
        if (i + need >= limit) {
            throw MemberScanner.malformed("a string that is not UTF-8", i);
        }
        for (int k = 1; k <= need; k++) {
            int d = b[i + k] & 0xff;
            if ((d & 0xc0) != 0x80) {
                throw MemberScanner.malformed("a string that is not UTF-8", i);
            }
            cp = (cp << 6) | (d & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
            throw MemberScanner.malformed("a string that is not UTF-8", i);
        }
        return i + need + 1;
    }

    /** The character of the {@code \\uXXXX} escape at {@code i}, or -1 when its four digits are not hex. */
    static int unicodeEscape(byte[] b, int i) {
        return (hex(b[i + 2]) << 12) | (hex(b[i + 3]) << 8) | (hex(b[i + 4]) << 4) | hex(b[i + 5]);
    }

    /** Decodes a string checked by {@link #end}. */
    static String decode(byte[] b, int from, int to, boolean escaped, boolean nonAscii) {
        if (!escaped) {
            return new String(b, from, to - from, nonAscii ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        }
        StringBuilder out = new StringBuilder(to - from);
        int run = from;
        int i = from;
        while (i < to) {
            if (b[i] != '\\') {
                i++;
                continue;
            }
            if (i > run) {
                out.append(new String(b, run, i - run, StandardCharsets.UTF_8));
            }
            byte e = b[i + 1];
            switch (e) {
                case 'u' -> {
                    out.append((char) unicodeEscape(b, i));
                    i += 6;
                }
                case 'b' -> { out.append('\b'); i += 2; }
                case 'f' -> { out.append('\f'); i += 2; }
                case 'n' -> { out.append('\n'); i += 2; }
                case 'r' -> { out.append('\r'); i += 2; }
                case 't' -> { out.append('\t'); i += 2; }
                default -> { out.append((char) e); i += 2; } // '"', '\\', '/'
            }
            run = i;
        }
        if (to > run) {
            out.append(new String(b, run, to - run, StandardCharsets.UTF_8));
        }
        return out.toString();
    }

    /** The value of a hex digit, or a negative number (so that any bad digit makes an escape negative). */
    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -0x10000;
    }
}
