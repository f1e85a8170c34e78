package io.trailproof.core.event;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Walks the top-level members of one JSON object written compactly, as every stored payload is
 * (RFC 8785: no whitespace outside strings), finding where each name and value starts and ends
 * without building anything. Reading a stored event is most of the cost of a chain verification,
 * a policy check and an export, and most of an event (inputs, outputs, metadata) only needs to be
 * stepped over; a general parser spends its time on names and tokens nobody reads.
 *
 * <p>What it promises: it accepts only bytes that Jackson reads as one JSON object, with the
 * settings the service reads stored events and evidence packages with (its limits on sizes lifted,
 * {@code StrictJson.unlimitedFactory()}; a duplicate name allowed, the last one winning as in a
 * plain {@code ObjectMapper}), and every answer it gives (names, values, where each value's bytes
 * are) is what Jackson reads there; a caller sees every member, duplicates included. Every byte is
 * checked on the way, stepped-over values included: the grammar of RFC 8259 (numbers, literals,
 * nesting, commas), escapes, no raw control characters, well-formed UTF-8 (no overlong forms, no
 * encoded surrogates, which Jackson's tree refuses or misreads), and names whose escaped surrogates
 * pair up (Jackson's interning of names refuses others, though it takes them in values). So the bytes of an
 * accepted payload are its text, as they stand. It refuses, with an {@link IllegalArgumentException},
 * everything else, and also whitespace, a byte order mark, nesting deeper than {@link #MAX_DEPTH}
 * levels and numbers longer than {@link #MAX_NUMBER_BYTES}, which no stored event holds: callers
 * then ask a full parser, which decides and explains (a refusal does not mean that Jackson refuses).
 * {@code MemberScannerJacksonTest} holds it to this. Not thread-safe; one scanner per payload.
 */
public final class MemberScanner {

    /** The kinds of value. */
    public enum Kind { STRING, NUMBER, OBJECT, ARRAY, LITERAL }

    /** Deepest nesting accepted, the payload's object being level 1 (an event nests at most 64 levels). */
    public static final int MAX_DEPTH = 200;
    /** Longest number accepted, in bytes (RFC 8785 writes none longer than 25). */
    static final int MAX_NUMBER_BYTES = 100;
    /** Largest payload accepted (far beyond any event's size): positions share an int with two flags. */
    static final int MAX_PAYLOAD_BYTES = (1 << 29) - 1;

    private static final int ESCAPED = JsonStrings.ESCAPED;
    private static final int NON_ASCII = JsonStrings.NON_ASCII;
    private static final int FLAGS = ESCAPED | NON_ASCII;

    private final byte[] b;
    /** Where the object ends (exclusive): the payload's length, or the end of a nested object's value. */
    private final int limit;
    /** The nesting level of this object: 1 for the payload's. */
    private final int level;
    private int pos;
    private boolean started;
    private int memberStart;
    private int nameStart;
    private int nameEnd;
    private boolean nameEscaped;
    private boolean nameNonAscii;
    private int valueStart;
    private int valueEnd;
    private Kind kind;
    private boolean valueEscaped;
    private boolean valueNonAscii;

    public MemberScanner(byte[] payload) {
        this(payload, 0, payload.length, 1);
    }

    private MemberScanner(byte[] payload, int from, int to, int level) {
        if (to - from < 2 || payload[from] != '{') {
            throw malformed("not a JSON object", from);
        }
        if (to > MAX_PAYLOAD_BYTES) {
            throw malformed("more than " + MAX_PAYLOAD_BYTES + " bytes", from);
        }
        this.b = payload;
        this.limit = to;
        this.level = level;
        this.pos = from + 1;
    }

    /** A scanner over the members of the current value, which must be an object. */
    public MemberScanner objectValue() {
        if (kind != Kind.OBJECT) {
            throw malformed("not an object", valueStart);
        }
        return new MemberScanner(b, valueStart, valueEnd, level + 1);
    }

    /**
     * Moves to the next member, having checked all of it; false after the last one, once the
     * closing brace was found to end the bytes.
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
        int r = endOfName(pos);
        nameStart = pos + 1;
        nameEnd = (r & ~FLAGS) - 1;
        nameEscaped = (r & ESCAPED) != 0;
        nameNonAscii = (r & NON_ASCII) != 0;
        pos = r & ~FLAGS;
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
            r = JsonStrings.end(b, pos, limit);
            valueEscaped = (r & ESCAPED) != 0;
            valueNonAscii = (r & NON_ASCII) != 0;
            pos = r & ~FLAGS;
        } else if (c == '{') {
            kind = Kind.OBJECT;
            pos = endOfObject(pos, level + 1);
        } else if (c == '[') {
            kind = Kind.ARRAY;
            pos = endOfArray(pos, level + 1);
        } else if (c == 't' || c == 'f' || c == 'n') {
            kind = Kind.LITERAL;
            pos = endOfLiteral(pos);
        } else {
            kind = Kind.NUMBER;
            pos = endOfNumber(pos);
        }
        valueEnd = pos;
        if (pos < limit && b[pos] != ',' && b[pos] != '}') {
            throw malformed("a comma or closing brace expected", pos);
        }
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

    /**
     * The length in bytes of the current member's name when it holds no escape (its bytes are then
     * its text), or -1: so that a reader looking for a few names compares only those of a matching
     * length ({@link #nameByte}, {@link #nameIs(byte[])}).
     */
    public int nameLength() {
        return nameEscaped ? -1 : nameEnd - nameStart;
    }

    /** Byte {@code i} of the current member's name as stored (below {@link #nameLength()}). */
    public byte nameByte(int i) {
        return b[nameStart + i];
    }

    /**
     * Whether the current member's name, holding no escape, is exactly the bytes {@code ascii} (an
     * ASCII name). False for an escaped name: ask {@link #nameIs(String)}.
     */
    public boolean nameIs(byte[] ascii) {
        return !nameEscaped && Arrays.equals(b, nameStart, nameEnd, ascii, 0, ascii.length);
    }

    /** The current member's name, decoded. */
    public String name() {
        return JsonStrings.decode(b, nameStart, nameEnd, nameEscaped, nameNonAscii);
    }

    /** The current value decoded when it is a string; null for any other kind. */
    public String stringValue() {
        return kind == Kind.STRING ? JsonStrings.decode(b, valueStart + 1, valueEnd - 1, valueEscaped, valueNonAscii) : null;
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
     * {@link #isHashValue()} that also decodes the 64 hex digits into {@code out} (32 bytes); {@code out}
     * is unspecified when the answer is false.
     */
    public boolean hashValueInto(byte[] out) {
        if (kind != Kind.STRING || valueEnd - valueStart != 2 * EventHash.LENGTH + 2) {
            return false;
        }
        int invalid = 0;
        for (int k = 0, i = valueStart + 1; k < EventHash.LENGTH; k++, i += 2) {
            int hi = HEX[b[i] & 0xff];
            int lo = HEX[b[i + 1] & 0xff];
            invalid |= hi | lo;
            out[k] = (byte) (hi << 4 | lo);
        }
        return invalid >= 0;
    }

    /**
     * The value of each byte as a lowercase hex digit, or -1 (which sets the sign bit) for any other
     * byte: a look-up, as the digits and letters of a hash alternate at random and a branch on them
     * would be mispredicted half the time.
     */
    private static final byte[] HEX = new byte[256];

    static {
        Arrays.fill(HEX, (byte) -1);
        for (int c = '0'; c <= '9'; c++) {
            HEX[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            HEX[c] = (byte) (c - 'a' + 10);
        }
    }

    /** Whether the current value is a string whose decoded text is {@code text}; builds nothing when it is plain ASCII. */
    public boolean stringValueIs(String text) {
        if (kind != Kind.STRING) {
            return false;
        }
        if (valueEscaped || valueNonAscii) {
            return stringValue().equals(text);
        }
        int from = valueStart + 1;
        int n = valueEnd - 1 - from;
        if (n != text.length()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[from + i] != text.charAt(i)) {
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
        if (digits > 18) {
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
        return Double.parseDouble(new String(b, valueStart, valueEnd - valueStart, StandardCharsets.ISO_8859_1));
    }

    /** The end of the value at {@code i}, all of it checked; containers in it are at {@code level}. */
    private int endOfValue(int i, int level) {
        if (i >= limit) {
            throw malformed("a value expected", i);
        }
        return switch (b[i]) {
            case '"' -> JsonStrings.end(b, i, limit) & ~FLAGS;
            case '{' -> endOfObject(i, level);
            case '[' -> endOfArray(i, level);
            case 't', 'f', 'n' -> endOfLiteral(i);
            default -> endOfNumber(i);
        };
    }

    /** The end of the object opening at {@code open}, at nesting {@code level}. */
    private int endOfObject(int open, int level) {
        if (level > MAX_DEPTH) {
            throw malformed("nesting deeper than " + MAX_DEPTH, open);
        }
        int i = open + 1;
        if (i < limit && b[i] == '}') {
            return i + 1;
        }
        while (true) {
            i = endOfName(i) & ~FLAGS;
            if (i >= limit || b[i] != ':') {
                throw malformed("a colon expected", i);
            }
            i = endOfValue(i + 1, level + 1);
            if (i >= limit) {
                throw malformed("an object does not end", open);
            }
            byte c = b[i++];
            if (c == '}') {
                return i;
            }
            if (c != ',') {
                throw malformed("a comma or closing brace expected", i - 1);
            }
        }
    }

    /** The end of the array opening at {@code open}, at nesting {@code level}. */
    private int endOfArray(int open, int level) {
        if (level > MAX_DEPTH) {
            throw malformed("nesting deeper than " + MAX_DEPTH, open);
        }
        int i = open + 1;
        if (i < limit && b[i] == ']') {
            return i + 1;
        }
        while (true) {
            i = endOfValue(i, level + 1);
            if (i >= limit) {
                throw malformed("an array does not end", open);
            }
            byte c = b[i++];
            if (c == ']') {
                return i;
            }
            if (c != ',') {
                throw malformed("a comma or closing bracket expected", i - 1);
            }
        }
    }

    /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, at most {@link #MAX_NUMBER_BYTES} long. */
    private int endOfNumber(int start) {
        int i = start;
        if (i < limit && b[i] == '-') {
            i++;
        }
        if (i >= limit || b[i] < '0' || b[i] > '9') {
            throw malformed("a value expected", start);
        }
        i = b[i] == '0' ? i + 1 : digits(i);
        if (i < limit && b[i] == '.') {
            int from = ++i;
            i = digits(i);
            if (i == from) {
                throw malformed("a digit expected", i);
            }
        }
        if (i < limit && (b[i] == 'e' || b[i] == 'E')) {
            i++;
            if (i < limit && (b[i] == '+' || b[i] == '-')) {
                i++;
            }
            int from = i;
            i = digits(i);
            if (i == from) {
                throw malformed("a digit expected", i);
            }
        }
        if (i - start > MAX_NUMBER_BYTES) {
            throw malformed("a number longer than " + MAX_NUMBER_BYTES + " bytes", start);
        }
        return i;
    }

    private int digits(int i) {
        while (i < limit && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    private int endOfLiteral(int start) {
        String literal = b[start] == 't' ? "true" : b[start] == 'f' ? "false" : "null";
        int end = start + literal.length();
        if (end > limit) {
            throw malformed("a bad literal", start);
        }
        for (int k = 1; k < literal.length(); k++) {
            if (b[start + k] != literal.charAt(k)) {
                throw malformed("a bad literal", start);
            }
        }
        return end;
    }

    /**
     * The end of the member name at {@code quote}, flagged as {@link JsonStrings#end} flags it. Jackson
     * refuses a name holding a surrogate that is not half of a pair, which only an escape can write.
     */
    private int endOfName(int quote) {
        if (quote >= limit || b[quote] != '"') {
            throw malformed("a member name expected", quote);
        }
        int r = JsonStrings.end(b, quote, limit);
        if ((r & ESCAPED) != 0) {
            JsonStrings.checkNameSurrogates(b, quote + 1, (r & ~FLAGS) - 1);
        }
        return r;
    }

    static IllegalArgumentException malformed(String what, int at) {
        return new Refusal("not a stored event's JSON: " + what + " at byte " + at);
    }

    /**
     * A refusal: every caller falls back to a full parser, which explains, so the place in this
     * class where the scan stopped is of no use, and a stack trace would cost more than the scan.
     */
    private static final class Refusal extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
