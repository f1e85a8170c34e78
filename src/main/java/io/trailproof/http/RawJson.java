package io.trailproof.http;

import com.fasterxml.jackson.core.SerializableString;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A JSON value that is already UTF-8 bytes (a stored event's payload), for
 * {@link com.fasterxml.jackson.core.JsonGenerator#writeRawValue(SerializableString)}: the generator
 * copies the bytes as they are, where a {@code String} would be decoded and encoded again.
 * The caller vouches that the bytes are one valid JSON value.
 */
final class RawJson implements SerializableString {

    private final byte[] utf8;
    private final int offset;
    private final int length;

    RawJson(byte[] utf8) {
        this(utf8, 0, utf8.length);
    }

    /** The value {@code utf8[offset, offset + length)}; the bytes are read when written, not copied here. */
    RawJson(byte[] utf8, int offset, int length) {
        this.utf8 = utf8;
        this.offset = offset;
        this.length = length;
    }

    @Override
    public int appendUnquotedUTF8(byte[] buffer, int at) {
        if (at + length > buffer.length) {
            return -1; // the generator then writes asUnquotedUTF8() through its slower path
        }
        System.arraycopy(utf8, offset, buffer, at, length);
        return length;
    }

    @Override
    public byte[] asUnquotedUTF8() {
        return offset == 0 && length == utf8.length ? utf8 : Arrays.copyOfRange(utf8, offset, offset + length);
    }

    @Override
    public int writeUnquotedUTF8(OutputStream out) throws IOException {
        out.write(utf8, offset, length);
        return length;
    }

    @Override
    public int putUnquotedUTF8(ByteBuffer buffer) {
        if (buffer.remaining() < length) {
            return -1;
        }
        buffer.put(utf8, offset, length);
        return length;
    }

    @Override
    public String getValue() {
        return new String(utf8, offset, length, StandardCharsets.UTF_8);
    }

    @Override
    public int charLength() {
        return getValue().length();
    }

    @Override
    public char[] asQuotedChars() {
        throw new UnsupportedOperationException("a raw JSON value is written unquoted");
    }

    @Override
    public byte[] asQuotedUTF8() {
        throw new UnsupportedOperationException("a raw JSON value is written unquoted");
    }

    @Override
    public int appendQuotedUTF8(byte[] buffer, int offset) {
        throw new UnsupportedOperationException("a raw JSON value is written unquoted");
    }

    @Override
    public int appendQuoted(char[] buffer, int offset) {
        throw new UnsupportedOperationException("a raw JSON value is written unquoted");
    }

    @Override
    public int appendUnquoted(char[] buffer, int offset) {
        String s = getValue();
        if (offset + s.length() > buffer.length) {
            return -1;
        }
        s.getChars(0, s.length(), buffer, offset);
        return s.length();
    }

    @Override
    public int writeQuotedUTF8(OutputStream out) {
        throw new UnsupportedOperationException("a raw JSON value is written unquoted");
    }

    @Override
    public int putQuotedUTF8(ByteBuffer buffer) {
        throw new UnsupportedOperationException("a raw JSON value is written unquoted");
    }
}
