package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The seal record of a segment the log has rolled past: {@code NNNNNNNNNNNNNNNNNNNN.sealed} beside
 * {@code NNNNNNNNNNNNNNNNNNNN.seg} (src/site/storage.md#what-a-start-reads). It records what a full
 * check of the sealed segment found, so that a start need not check it again: the segment's length,
 * its payload count, its side records, and the offset of every record frame.
 *
 * <p><b>Layout</b> (big-endian), three parts each under its own CRC32C: the head {@code "TPSEAL02"},
 * the segment's first index, its length in bytes, its payload count, the number of side records and
 * their total bytes, then the head's CRC32C; the side records, each as its offset (8 bytes), its
 * length (4) and its payload, then their CRC32C; the payload count's frame offsets (8 bytes each),
 * then their CRC32C. A start reads the head only (44 bytes, whatever the segment holds); the side
 * records are read after the start ({@link #readSides}), the offsets when the segment is first read.
 *
 * <p>The format before ({@code "TPSEAL01"}) had one CRC32C over the head and the side records
 * together, so its head cannot be trusted without reading its side records: {@link #readHead}
 * reads both for such a record, and the start with them; it is still read, never written.
 *
 * <p><b>Trust.</b> A seal record is derived, never the source of truth, and each part is used only
 * while it agrees with its segment: same first index, same length, and (when its offsets are loaded)
 * a valid commit frame at the segment's end recording the count it names. Anything else (no record, a
 * torn or damaged one, a segment of another length) makes the log check that segment in full, as it did
 * before seal records existed, and write the record again. Written once the segment's frames are forced,
 * by a rename of a complete temporary file; it needs no force of its own, as a torn record fails its CRC.
 */
final class SealRecord {
    static final String SUFFIX = ".sealed";
    private static final byte[] MAGIC = {'T', 'P', 'S', 'E', 'A', 'L', '0', '2'};
    private static final byte[] MAGIC_V1 = {'T', 'P', 'S', 'E', 'A', 'L', '0', '1'};
    private static final int FIELDS_BYTES = 8 + 8 + 8 + 8 + 4 + 4;
    /** What a start reads of a current record: its fields and their CRC32C. */
    static final int HEAD_BYTES = FIELDS_BYTES + 4;
    /** Largest side part a seal record may announce; a larger one is treated as damaged. */
    private static final int MAX_SIDE_BYTES = 1 << 30;

    /** A side record of the segment: its frame's offset in the file and its payload. */
    record Side(long offset, byte[] payload) {
    }

    /**
     * The part of a seal record a start reads. {@code sides} is null for a current record (they are
     * read by {@link #readSides}); a record of the format before carries them, since its head was
     * checked with them. {@code bytesRead}: what reading it took; {@code positionsAt}: where the
     * frame offsets begin in the record.
     */
    record Head(long start, long length, long count, int sideCount, int sideBytes, List<Side> sides,
                long bytesRead, long positionsAt) {
    }

    private SealRecord() {
    }

    static Path path(Path dir, long start) {
        return dir.resolve(String.format("%020d", start) + SUFFIX);
    }

    /**
     * Writes the seal record of the segment starting at {@code start}: {@code length} bytes,
     * {@code positions.length} payloads. Replaces any earlier record atomically (rename). Writers of
     * records are serialised (they share the temporary file's name).
     */
    static synchronized void write(Path dir, long start, long length, long[] positions, List<Side> sides)
            throws IOException {
        int sideBytes = 0;
        for (Side s : sides) {
            sideBytes += 12 + s.payload().length;
        }
        ByteBuffer b = ByteBuffer.allocate(HEAD_BYTES + sideBytes + 4 + positions.length * 8 + 4);
        b.put(MAGIC).putLong(start).putLong(length).putLong(positions.length).putInt(sides.size()).putInt(sideBytes);
        b.putInt(crc(b.array(), 0, FIELDS_BYTES));
        for (Side s : sides) {
            b.putLong(s.offset()).putInt(s.payload().length).put(s.payload());
        }
        b.putInt(crc(b.array(), HEAD_BYTES, sideBytes));
        int positionsAt = b.position();
        for (long p : positions) {
            b.putLong(p);
        }
        b.putInt(crc(b.array(), positionsAt, b.position() - positionsAt));
        Path target = path(dir, start);
        Path tmp = dir.resolve(target.getFileName() + ".tmp");
        Files.write(tmp, b.array());
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Removes the seal record of the segment starting at {@code start}, if any (before its segment is rewritten). */
    static void delete(Path dir, long start) throws IOException {
        Files.deleteIfExists(path(dir, start));
    }

    /**
     * The head of the seal record of the segment starting at {@code start} (with its side records for
     * a record of the format before), or empty when there is none or it is damaged (the caller then
     * checks the segment in full).
     */
    static Optional<Head> readHead(Path dir, long start) throws IOException {
        try (FileChannel ch = FileChannel.open(path(dir, start), StandardOpenOption.READ)) {
            long fileSize = ch.size();
            if (fileSize < HEAD_BYTES) {
                return Optional.empty();
            }
            ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES);
            if (!readFully(ch, head, 0)) {
                return Optional.empty();
            }
            byte[] h = head.array();
            boolean current = startsWith(h, MAGIC);
            if (!current && !startsWith(h, MAGIC_V1)) {
                return Optional.empty();
            }
            head.position(MAGIC.length);
            long recStart = head.getLong();
            long length = head.getLong();
            long count = head.getLong();
            int sideCount = head.getInt();
            int sideBytes = head.getInt();
            if (recStart != start || length < 0 || count < 0 || sideCount < 0 || sideBytes < 0
                    || sideBytes > MAX_SIDE_BYTES || count > Integer.MAX_VALUE / 8 - 1
                    || fileSize != HEAD_BYTES + (long) sideBytes + 4 + count * 8 + (current ? 4 : 0)) {
                return Optional.empty();
            }
            if (current) {
                if (crc(h, 0, FIELDS_BYTES) != head.getInt()) {
                    return Optional.empty();
                }
                return Optional.of(new Head(start, length, count, sideCount, sideBytes, null, HEAD_BYTES,
                        HEAD_BYTES + sideBytes + 4L));
            }
            // The format before: one CRC32C over the fields and the side records (no CRC of its own for the head).
            ByteBuffer rest = ByteBuffer.allocate(sideBytes + 4);
            if (!readFully(ch, rest, FIELDS_BYTES)) {
                return Optional.empty();
            }
            CRC32C crc = new CRC32C();
            crc.update(h, 0, FIELDS_BYTES);
            crc.update(rest.array(), 0, sideBytes);
            if ((int) crc.getValue() != rest.getInt(sideBytes)) {
                return Optional.empty();
            }
            rest.position(0);
            List<Side> sides = parseSides(rest, sideCount, sideBytes, length);
            if (sides == null) {
                return Optional.empty();
            }
            long read = FIELDS_BYTES + sideBytes + 4L;
            return Optional.of(new Head(start, length, count, sideCount, sideBytes, sides, read, read));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * The side records of {@code head}'s segment (those a record of the format before carries in its
     * head), or empty when they are missing, damaged or impossible.
     */
    static Optional<List<Side>> readSides(Path dir, Head head) throws IOException {
        if (head.sides() != null) {
            return Optional.of(head.sides());
        }
        try (FileChannel ch = FileChannel.open(path(dir, head.start()), StandardOpenOption.READ)) {
            if (ch.size() != head.positionsAt() + head.count() * 8 + 4) {
                return Optional.empty();
            }
            ByteBuffer b = ByteBuffer.allocate(head.sideBytes() + 4);
            if (!readFully(ch, b, HEAD_BYTES)) {
                return Optional.empty();
            }
            if (crc(b.array(), 0, head.sideBytes()) != b.getInt(head.sideBytes())) {
                return Optional.empty();
            }
            b.position(0);
            return Optional.ofNullable(parseSides(b, head.sideCount(), head.sideBytes(), head.length()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The {@code count} side records in the first {@code bytes} of {@code b}, or null when they do not fit. */
    private static List<Side> parseSides(ByteBuffer b, int count, int bytes, long segmentLength) {
        List<Side> sides = new ArrayList<>(Math.min(count, bytes / 13 + 1));
        for (int i = 0; i < count; i++) {
            if (b.position() + 12 > bytes) {
                return null;
            }
            long offset = b.getLong();
            int len = b.getInt();
            if (len <= 0 || b.position() + len > bytes || offset < 0 || offset >= segmentLength) {
                return null;
            }
            byte[] payload = new byte[len];
            b.get(payload);
            sides.add(new Side(offset, payload));
        }
        return b.position() == bytes ? List.copyOf(sides) : null;
    }

    /**
     * The frame offsets a seal record holds for {@code head}'s segment, or empty when they are
     * missing, damaged or impossible (not increasing, or beyond the segment).
     */
    static Optional<long[]> readPositions(Path dir, Head head) throws IOException {
        long at = head.positionsAt();
        if (head.count() > Integer.MAX_VALUE / 8 - 1) {
            return Optional.empty();
        }
        int n = (int) head.count();
        try (FileChannel ch = FileChannel.open(path(dir, head.start()), StandardOpenOption.READ)) {
            if (ch.size() != at + n * 8L + 4) {
                return Optional.empty();
            }
            ByteBuffer b = ByteBuffer.allocate(n * 8 + 4);
            if (!readFully(ch, b, at)) {
                return Optional.empty();
            }
            b.flip();
            if (crc(b.array(), 0, n * 8) != b.getInt(n * 8)) {
                return Optional.empty();
            }
            long[] positions = new long[n];
            long previous = -1;
            for (int i = 0; i < n; i++) {
                long p = b.getLong();
                if (p <= previous || p + FrameCodec.HEADER_BYTES >= head.length()) {
                    return Optional.empty();
                }
                positions[i] = p;
                previous = p;
            }
            return Optional.of(positions);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    private static boolean startsWith(byte[] b, byte[] magic) {
        for (int i = 0; i < magic.length; i++) {
            if (b[i] != magic[i]) {
                return false;
            }
        }
        return true;
    }

    /** Fills {@code dst} from {@code pos}; false when the file ends first (a record cut since its size was read). */
    private static boolean readFully(FileChannel ch, ByteBuffer dst, long pos) throws IOException {
        long p = pos;
        while (dst.hasRemaining()) {
            int n = ch.read(dst, p);
            if (n < 0) {
                return false;
            }
            p += n;
        }
        return true;
    }

    private static int crc(byte[] b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return (int) c.getValue();
    }
}
