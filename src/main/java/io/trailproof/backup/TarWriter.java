package io.trailproof.backup;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes a POSIX ustar archive (IEEE 1003.1-1988 as GNU tar and bsdtar read it) of regular files,
 * streamed: a 512-byte header, the file's bytes, zeros to the next 512-byte boundary, and two zero
 * blocks at the end. Only what a backup needs: regular files, names of at most 100 bytes (no
 * prefix field, no pax or GNU extensions), sizes below 8 GiB (11 octal digits). Not thread-safe.
 *
 * <p>Our own rather than Apache Commons Compress: the backup writes a handful of short names and
 * the restore must refuse everything else anyway (links, devices, long-name extensions, pax
 * headers), so a general archiver would add two jars for features the reader has to forbid.
 */
public final class TarWriter {
    /** Size of a header and of the unit file data is padded to. */
    public static final int BLOCK = 512;
    /** Largest entry size the 11-digit octal size field holds. */
    public static final long MAX_SIZE = 077777777777L;
    /** Longest entry name, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 100;

    private final OutputStream out;
    private final long mtimeSeconds;
    private long remaining = -1;
    private long entrySize;
    private boolean finished;

    /** @param mtimeSeconds the modification time written for every entry (the backup's time) */
    public TarWriter(OutputStream out, long mtimeSeconds) {
        this.out = out;
        this.mtimeSeconds = mtimeSeconds;
    }

    /** Bytes of an archive of files of these sizes, headers, padding and end blocks included. */
    public static long archiveSize(long... sizes) {
        long total = 2L * BLOCK;
        for (long s : sizes) {
            total += BLOCK + padded(s);
        }
        return total;
    }

    static long padded(long size) {
        return (size + BLOCK - 1) / BLOCK * BLOCK;
    }

    /**
     * Starts an entry: writes its header. Exactly {@code size} bytes must then be written with
     * {@link #write} before {@link #closeEntry}.
     *
     * @param mode permission bits, e.g. {@code 0644}
     */
    public void startEntry(String name, long size, int mode) throws IOException {
        if (remaining >= 0) {
            throw new IllegalStateException("the previous entry was not closed");
        }
        out.write(header(name, size, mode, mtimeSeconds));
        remaining = size;
        entrySize = size;
    }

    /** Writes bytes of the current entry. */
    public void write(byte[] b, int off, int len) throws IOException {
        if (len > remaining) {
            throw new IllegalStateException("more bytes than the entry's declared size " + entrySize);
        }
        out.write(b, off, len);
        remaining -= len;
    }

    /**
     * Counts {@code n} bytes of the current entry that the caller wrote past this writer, straight
     * to the stream underneath (a zero-copy file transfer); nothing must be buffered between.
     */
    public void wroteDirectly(long n) {
        if (n > remaining) {
            throw new IllegalStateException("more bytes than the entry's declared size " + entrySize);
        }
        remaining -= n;
    }

    /** Ends the current entry: checks its size and pads it to a block boundary. */
    public void closeEntry() throws IOException {
        if (remaining != 0) {
            throw new IllegalStateException("the entry is " + remaining + " bytes short of its declared size");
        }
        int pad = (int) (padded(entrySize) - entrySize);
        out.write(new byte[pad]);
        remaining = -1;
    }

    /** Writes a whole small entry. */
    public void entry(String name, byte[] content, int mode) throws IOException {
        startEntry(name, content.length, mode);
        write(content, 0, content.length);
        closeEntry();
    }

    /** Writes the two zero blocks that end an archive and flushes; the stream stays open. */
    public void finish() throws IOException {
        if (remaining >= 0) {
            throw new IllegalStateException("the last entry was not closed");
        }
        if (!finished) {
            out.write(new byte[2 * BLOCK]);
            out.flush();
            finished = true;
        }
    }

    static byte[] header(String name, long size, int mode, long mtimeSeconds) {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length == 0 || nameBytes.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("tar entry name must be 1 to " + MAX_NAME_BYTES + " bytes: " + name);
        }
        if (size < 0 || size > MAX_SIZE) {
            throw new IllegalArgumentException("tar entry " + name + " of " + size + " bytes: at most " + MAX_SIZE);
        }
        byte[] h = new byte[BLOCK];
        System.arraycopy(nameBytes, 0, h, 0, nameBytes.length);
        octal(h, 100, 8, mode & 07777);
        octal(h, 108, 8, 0);                     // uid
        octal(h, 116, 8, 0);                     // gid
        octal(h, 124, 12, size);
        octal(h, 136, 12, Math.max(0, mtimeSeconds));
        h[156] = '0';                            // regular file
        ascii(h, 257, "ustar\0");
        ascii(h, 263, "00");
        Arrays.fill(h, 148, 156, (byte) ' ');    // the checksum is computed with its own field as spaces
        octal(h, 148, 7, checksum(h));
        h[155] = ' ';
        return h;
    }

    static long checksum(byte[] header) {
        long sum = 0;
        for (int i = 0; i < BLOCK; i++) {
            sum += (i >= 148 && i < 156) ? ' ' : (header[i] & 0xff);
        }
        return sum;
    }

    /** {@code width - 1} zero-padded octal digits and a NUL. */
    private static void octal(byte[] h, int offset, int width, long value) {
        String digits = Long.toOctalString(value);
        if (digits.length() > width - 1) {
            throw new IllegalArgumentException("value " + value + " does not fit in " + (width - 1) + " octal digits");
        }
        ascii(h, offset, "0".repeat(width - 1 - digits.length()) + digits);
        h[offset + width - 1] = 0;
    }

    private static void ascii(byte[] h, int offset, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(b, 0, h, offset, b.length);
    }
}
