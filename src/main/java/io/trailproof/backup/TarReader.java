package io.trailproof.backup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;

/**
 * Reads a ustar archive strictly, streamed: regular files only (anything else, such as a link, a
 * device, a directory, or a pax or GNU extension header, is refused), every header's checksum
 * checked, and an archive that ends before its end-of-archive blocks is refused as truncated.
 * Entry names are returned as stored; deciding whether a name is acceptable is the caller's job.
 * Not thread-safe.
 */
public final class TarReader {

    /** A damaged, truncated or unsupported archive; the message says which and where. */
    public static final class TarFormatException extends IOException {
        public TarFormatException(String message) {
            super(message);
        }
    }

    /** An entry: its name, size and permission bits. */
    public record Entry(String name, long size, int mode) {
    }

    private static final int BLOCK = TarWriter.BLOCK;

    private final InputStream in;
    private final byte[] header = new byte[BLOCK];
    private long offset;
    private long remaining;
    private long padding;
    private boolean ended;

    public TarReader(InputStream in) {
        this.in = in;
    }

    /** Bytes of the archive consumed so far. */
    public long offset() {
        return offset;
    }

    /**
     * The next entry, or null at the end of the archive (after which only zero bytes may follow).
     * Skips whatever is left of the previous entry's content.
     */
    public Entry next() throws IOException {
        if (ended) {
            return null;
        }
        skip(remaining + padding);
        remaining = 0;
        padding = 0;
        long at = offset;
        if (!readBlock(header)) {
            throw new TarFormatException("the archive ends early, at byte " + at + ", without its end-of-archive "
                    + "marker: it is truncated");
        }
        if (allZero(header)) {
            ended = true;
            checkOnlyZerosFollow();
            return null;
        }
        long stored = parseOctal(header, 148, 8, "checksum", at);
        if (stored != TarWriter.checksum(header)) {
            throw new TarFormatException("the header at byte " + at + " fails its checksum: the archive is damaged");
        }
        String magic = new String(header, 257, 5, StandardCharsets.US_ASCII);
        if (!magic.equals("ustar")) {
            throw new TarFormatException("the header at byte " + at + " is not a POSIX ustar header");
        }
        byte type = header[156];
        String name = joinName(at);
        if (type != '0' && type != 0) {
            throw new TarFormatException("entry " + printable(name) + " at byte " + at + " is not a regular file (type '"
                    + (char) type + "'): a backup holds regular files only");
        }
        long size = parseOctal(header, 124, 12, "size", at);
        int mode = (int) parseOctal(header, 100, 8, "mode", at);
        remaining = size;
        padding = TarWriter.padded(size) - size;
        return new Entry(name, size, mode);
    }

    /**
     * Reads the current entry's content into {@code buf}; -1 once all of it was read.
     *
     * @throws TarFormatException when the archive ends inside the content
     */
    public int read(byte[] buf, int off, int len) throws IOException {
        if (remaining == 0) {
            return -1;
        }
        int n = in.read(buf, off, (int) Math.min(len, remaining));
        if (n < 0) {
            throw new TarFormatException("the archive ends early, at byte " + offset + ", inside an entry: it is "
                    + "truncated");
        }
        offset += n;
        remaining -= n;
        return n;
    }

    private String joinName(long at) throws TarFormatException {
        String name = field(0, 100, at);
        String prefix = field(345, 155, at);
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    private String field(int start, int width, long at) throws TarFormatException {
        int end = start;
        while (end < start + width && header[end] != 0) {
            end++;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(header, start, end - start)).toString();
        } catch (CharacterCodingException e) {
            throw new TarFormatException("the header at byte " + at + " holds a name that is not UTF-8");
        }
    }

    private long parseOctal(byte[] h, int start, int width, String what, long at) throws TarFormatException {
        int i = start;
        int end = start + width;
        while (i < end && h[i] == ' ') {
            i++;
        }
        long value = 0;
        int digits = 0;
        for (; i < end && h[i] >= '0' && h[i] <= '7'; i++, digits++) {
            value = (value << 3) | (h[i] - '0');
        }
        for (; i < end; i++) {
            if (h[i] != 0 && h[i] != ' ') {
                throw new TarFormatException("the " + what + " field of the header at byte " + at + " is not octal digits");
            }
        }
        if (digits == 0 || digits > 11) {
            throw new TarFormatException("the " + what + " field of the header at byte " + at + " is not octal digits");
        }
        return value;
    }

    private void checkOnlyZerosFollow() throws IOException {
        byte[] buf = new byte[8192];
        int n;
        while ((n = in.read(buf)) > 0) {
            for (int i = 0; i < n; i++) {
                if (buf[i] != 0) {
                    throw new TarFormatException("bytes follow the end-of-archive marker at byte " + (offset + i)
                            + ": the archive was altered");
                }
            }
            offset += n;
        }
    }

    private boolean readBlock(byte[] b) throws IOException {
        int got = in.readNBytes(b, 0, BLOCK);
        offset += got;
        if (got == 0) {
            return false;
        }
        if (got < BLOCK) {
            throw new TarFormatException("the archive ends early, inside a header at byte " + (offset - got)
                    + ": it is truncated");
        }
        return true;
    }

    private void skip(long n) throws IOException {
        long left = n;
        byte[] buf = new byte[8192];
        while (left > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (r < 0) {
                throw new TarFormatException("the archive ends early, at byte " + offset + ", inside an entry: it is "
                        + "truncated");
            }
            left -= r;
            offset += r;
        }
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    static String printable(String name) {
        StringBuilder b = new StringBuilder("'");
        for (int i = 0; i < name.length() && i < 120; i++) {
            char c = name.charAt(i);
            b.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return b.append(name.length() > 120 ? "...'" : "'").toString();
    }
}
