package io.trailproof.core.event;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Walks the top-level members of one JSON object written the way every stored payload is written
 * (RFC 8785: no whitespace outside strings), finding where each name and value starts and ends
 * without building anything. Reading a stored event is most of the cost of a chain verification
 * and of a policy check, and most of an event (inputs, outputs, metadata) only needs to be
 * stepped over; a general parser spends its time on names and tokens nobody reads.
 *
 * <p>What it guarantees: the object's structure (member names, where each value ends, strings
 * well formed with valid escapes and no raw control characters, nesting balanced, nothing after
 * the closing brace), and the values it is asked to decode. What it does not: the inside of a
 * number it steps over, or the UTF-8 of a string it is not asked to decode. A caller that must be
 * sure of every byte verifies the hash over them ({@link IntactEvent}), which only bytes the
 * service canonicalised can pass. Anything it does not expect, including whitespace and nesting
 * deeper than 64, is an {@link IllegalArgumentException}: callers fall back to a full parser,
 * which decides and explains. Not thread-safe; one scanner per payload.
 */
public final class MemberScanner {

    /** The kinds of value, as far as finding their end needs to know them. */
    public enum Kind { STRING, NUMBER, OBJECT, ARRAY, LITERAL }

    private static final int MAX_DEPTH = 64;

    private final byte[] b;
    /** Where the object ends (exclusive): the payload's length, or the end of a nested object's value. */
    private final int limit;
    private int pos;
    private boolean started;
    private int memberStart;
    private int nameStart;
    private int nameEnd;
    private boolean nameEscaped;
    private int valueStart;
    private int valueEnd;
    private Kind kind;
    private boolean valueEscaped;
    private boolean valueNonAscii;

    public MemberScanner(byte[] payload) {
        this(payload, 0, payload.length);
    }

    private MemberScanner(byte[] payload, int from, int to) {
        if (to - from < 2 || payload[from] != '{') {
            throw malformed("not a JSON object", from);
        }
        this.b = payload;
        this.limit = to;
        this.pos = from + 1;
    }

    /** A scanner over the members of the current value, which must be an object. */
    public MemberScanner objectValue() {
        if (kind != Kind.OBJECT) {
            throw malformed("not an object", valueStart);
        }
        return new MemberScanner(b, valueStart, valueEnd);
    }

    /**
     * Moves to the next member; false after the last one, once the closing brace was found to end
     * the bytes.
     */
    public boolean next() {
        if (pos >= limit) {
            throw malformed("the object does not end", pos);
        }
        byte c = b[pos];
        if (c == '}') {
            if (pos != limit - 1) {
                throw malformed("bytes after the object", pos + 1);
            }
            pos++;
            return false;
        }
        if (started) {
            if (c != ',') {
                throw malformed("a comma or closing brace expected", pos);
            }
            pos++;
        }
        started = true;
        memberStart = pos;
        if (pos >= limit || b[pos] != '"') {
            throw malformed("a member name expected", pos);
        }
        nameStart = pos + 1;
        valueEscaped = false;
        valueNonAscii = false;
        pos = endOfString(pos);
        nameEnd = pos - 1;
        nameEscaped = valueEscaped;
        if (pos >= limit || b[pos] != ':') {
            throw malformed("a colon expected", pos);
        }
        pos++;
        valueStart = pos;
        valueEscaped = false;
        valueNonAscii = false;
        if (pos >= limit) {
            throw malformed("a value expected", pos);
        }
        c = b[pos];
        if (c == '"') {
            kind = Kind.STRING;
            pos = endOfString(pos);
        } else if (c == '{' || c == '[') {
            kind = c == '{' ? Kind.OBJECT : Kind.ARRAY;
            pos = endOfNested(pos);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            kind = Kind.NUMBER;
            pos = endOfNumber(pos);
        } else if (c == 't' || c == 'f' || c == 'n') {
            kind = Kind.LITERAL;
            pos = endOfLiteral(pos);
        } else {
            throw malformed("a value expected", pos);
        }
        valueEnd = pos;
        return true;
    }

    /** Where the current member starts (its name's opening quote). */
    public int memberStart() {
        return memberStart;
    }

    /** Where the current member's value ends (exclusive): a comma or the closing brace is there. */
    public int valueEnd() {
        return valueEnd;
    }

    public int valueStart() {
        return valueStart;
    }

    public Kind kind() {
        return kind;
    }

    /** The byte after the current member's value: a comma when another member follows. */
    public byte after() {
        return valueEnd < limit ? b[valueEnd] : 0;
    }

    /** Whether the current member's name is {@code ascii} (a name made of ASCII characters only). */
    public boolean nameIs(String ascii) {
        if (nameEscaped) {
            return name().equals(ascii);
        }
        int n = nameEnd - nameStart;
        if (n != ascii.length()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[nameStart + i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The current member's name, decoded. */
    public String name() {
        return decode(nameStart, nameEnd, nameEscaped, !nameEscaped && !ascii(nameStart, nameEnd));
    }

    /** The current value decoded when it is a string; null for any other kind. */
    public String stringValue() {
        return kind == Kind.STRING ? decode(valueStart + 1, valueEnd - 1, valueEscaped, valueNonAscii) : null;
    }

    /** Whether the current value is a string of exactly 64 lowercase hex digits (an event hash in wire form). */
    public boolean isHashValue() {
        if (kind != Kind.STRING || valueEnd - valueStart != 2 * EventHash.LENGTH + 2) {
            return false;
        }
        for (int i = valueStart + 1; i < valueEnd - 1; i++) {
            byte c = b[i];
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The current value when it is an integer written in plain digits that fits a long with room
     * to spare (at most 18 digits, optional minus); {@link Long#MIN_VALUE} for anything else.
     */
    public long integerValue() {
        if (kind != Kind.NUMBER) {
            return Long.MIN_VALUE;
        }
        int i = valueStart;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        int digits = valueEnd - i;
        if (digits < 1 || digits > 18 || (digits > 1 && b[i] == '0')) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < valueEnd; i++) {
            byte c = b[i];
            if (c < '0' || c > '9') {
                return Long.MIN_VALUE;
            }
            v = v * 10 + (c - '0');
        }
        return negative ? -v : v;
    }

    /** The current value read as a double when it is a number (RFC 8785 writes 1e+21 and up this way). */
    public double doubleValue() {
        if (kind != Kind.NUMBER) {
            throw malformed("not a number", valueStart);
        }
        try {
            return Double.parseDouble(new String(b, valueStart, valueEnd - valueStart, StandardCharsets.ISO_8859_1));
        } catch (NumberFormatException e) {
            throw malformed("not a number", valueStart);
        }
    }

    private int endOfString(int quote) {
        int i = quote + 1;
        while (i < limit) {
            byte c = b[i];
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                valueEscaped = true;
                if (i + 1 >= limit) {
                    break;
                }
                byte e = b[i + 1];
                if (e == 'u') {
                    if (i + 5 >= limit || hex(b[i + 2]) < 0 || hex(b[i + 3]) < 0 || hex(b[i + 4]) < 0
                            || hex(b[i + 5]) < 0) {
                        throw malformed("a bad \\u escape", i);
                    }
                    i += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
                        || e == 't') {
                    i += 2;
                } else {
                    throw malformed("a bad escape", i);
                }
            } else if (c >= 0 && c < 0x20) {
                throw malformed("a control character in a string", i);
            } else {
                if (c < 0) {
                    valueNonAscii = true;
                }
                i++;
            }
        }
        throw malformed("a string does not end", quote);
    }

    /** The end of the object or array opening at {@code open}; brackets must pair. */
    private int endOfNested(int open) {
        long closers = 0; // one bit a level: 1 for '}', 0 for ']'
        int depth = 0;
        int i = open;
        while (i < limit) {
            byte c = b[i];
            switch (c) {
                case '"' -> {
                    i = endOfString(i);
                    continue;
                }
                case '{', '[' -> {
                    if (depth == MAX_DEPTH) {
                        throw malformed("nesting deeper than " + MAX_DEPTH, i);
                    }
                    closers = (closers << 1) | (c == '{' ? 1 : 0);
                    depth++;
                }
                case '}', ']' -> {
                    if ((closers & 1) != (c == '}' ? 1 : 0)) {
                        throw malformed("brackets that do not pair", i);
                    }
                    closers >>>= 1;
                    if (--depth == 0) {
                        return i + 1;
                    }
                }
                case ' ', '\t', '\n', '\r' -> throw malformed("whitespace", i);
                default -> { }
            }
            i++;
        }
        throw malformed("an object or array does not end", open);
    }

    private int endOfNumber(int start) {
        int i = start;
        while (i < limit) {
            byte c = b[i];
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
                i++;
            } else {
                break;
            }
        }
        return i;
    }

    private int endOfLiteral(int start) {
        for (String literal : new String[] {"true", "false", "null"}) {
            if (literal.charAt(0) == b[start]) {
                int end = start + literal.length();
                if (end > limit) {
                    break;
                }
                for (int k = 1; k < literal.length(); k++) {
                    if (b[start + k] != literal.charAt(k)) {
                        throw malformed("a bad literal", start);
                    }
                }
                return end;
            }
        }
        throw malformed("a bad literal", start);
    }

    private boolean ascii(int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] < 0) {
                return false;
            }
        }
        return true;
    }

    private String decode(int from, int to, boolean escaped, boolean nonAscii) {
        if (!escaped) {
            if (!nonAscii) {
                return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
            }
            return strictUtf8(from, to);
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
                out.append(strictUtf8(run, i));
            }
            byte e = b[i + 1];
            switch (e) {
                case 'u' -> {
                    out.append((char) ((hex(b[i + 2]) << 12) | (hex(b[i + 3]) << 8) | (hex(b[i + 4]) << 4)
                            | hex(b[i + 5])));
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
            out.append(strictUtf8(run, to));
        }
        return out.toString();
    }

    private String strictUtf8(int from, int to) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b, from, to - from)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("a string that is not UTF-8", from);
        }
    }

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
        return -1;
    }

    private static IllegalArgumentException malformed(String what, int at) {
        return new IllegalArgumentException("not a stored event's JSON: " + what + " at byte " + at);
    }
}
