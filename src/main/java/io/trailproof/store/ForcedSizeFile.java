package io.trailproof.store;

import java.io.Closeable;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * {@code dir/forced-size}: how many payloads of the log were on disk at the last completed force,
 * so that recovery can tell acknowledged groups from never-forced ones (a log shorter than this is
 * missing acknowledged events).
 *
 * <p>Rewritten in place after each successful force, <em>not</em> forced itself (that would double
 * the cost of group commit); forced at open and at clean close. Because it is written only after
 * the force it describes, it never claims more than is on disk: a power loss can leave it older
 * than the log, never ahead of it, so it cannot raise a false alarm. Rewriting an existing file's
 * bytes needs no new blocks, so it still works on a full disk; that is how a failed log that could
 * not truncate its refused groups records that everything beyond the count was refused.
 *
 * <p>Layout: 64 bytes, two slots of 32 written alternately (a torn write leaves the other slot):
 * {@code "TPFS"}, version 1, state (0 = the log was usable, 1 = the log failed and refused every
 * group beyond the count), 2 reserved, generation (8 bytes big-endian), forced payload count (8),
 * 4 reserved, CRC32C of the preceding 28 bytes. The valid slot with the higher generation wins.
 */
final class ForcedSizeFile implements Closeable {
    static final String NAME = "forced-size";
    private static final int SLOT_BYTES = 32;
    private static final int FILE_BYTES = 2 * SLOT_BYTES;
    private static final int MAGIC = 0x54504653; // "TPFS"
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /**
     * What the file says: {@code forced} payloads were on disk; {@code failed}: all beyond them were
     * refused; {@code generation} orders the writes.
     */
    record State(long forced, boolean failed, long generation) {
    }

    private final Path path;
    private final SegmentIo.WritableFile file;
    private final byte[] slot = new byte[SLOT_BYTES];
    private long generation;
    /** The count the file says on disk for certain (last forced write), or -1. */
    private long durable = -1;
    /** The count of the last write, or -1. */
    private long lastWritten = -1;

    private ForcedSizeFile(Path path, SegmentIo.WritableFile file, long generation) {
        this.path = path;
        this.file = file;
        this.generation = generation;
    }

    /**
     * Reads the file in {@code dir}: empty when there is none (a log of an earlier version) or when
     * neither slot is valid.
     */
    static Optional<State> read(Path dir) throws IOException {
        byte[] b;
        try {
            b = Files.readAllBytes(dir.resolve(NAME));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        int best = -1;
        for (int s = 0; s < 2; s++) {
            if (valid(b, s * SLOT_BYTES) && (best < 0
                    || (long) LONG.get(b, s * SLOT_BYTES + 8) > (long) LONG.get(b, best + 8))) {
                best = s * SLOT_BYTES;
            }
        }
        if (best < 0) {
            return Optional.empty();
        }
        return Optional.of(new State((long) LONG.get(b, best + 16), b[best + 5] == 1, (long) LONG.get(b, best + 8)));
    }

    /** Whether {@code dir} holds a forced-size file, valid or not. */
    static boolean exists(Path dir) {
        return Files.exists(dir.resolve(NAME));
    }

    private static boolean valid(byte[] b, int o) {
        if (b.length < o + SLOT_BYTES || (int) INT.get(b, o) != MAGIC || b[o + 4] != 1 || (b[o + 5] & ~1) != 0) {
            return false;
        }
        CRC32C crc = new CRC32C();
        crc.update(b, o, SLOT_BYTES - 4);
        return (int) crc.getValue() == (int) INT.get(b, o + SLOT_BYTES - 4);
    }

    /**
     * Opens (creating if needed) the file in {@code dir} and makes it say durably that
     * {@code forced} payloads are on disk and the log is usable; a file that already says exactly
     * that is left as it is (no force).
     */
    static ForcedSizeFile open(Path dir, SegmentIo io, long forced) throws IOException {
        Path p = dir.resolve(NAME);
        boolean created = false;
        if (!Files.exists(p)) {
            Files.newByteChannel(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE).close();
            created = true;
        }
        Optional<State> now = read(dir);
        SegmentIo.WritableFile f = io.open(p);
        ForcedSizeFile file = new ForcedSizeFile(p, f, now.map(State::generation).orElse(0L));
        try {
            if (now.isPresent() && !now.get().failed() && now.get().forced() == forced && Files.size(p) == FILE_BYTES) {
                file.durable = forced;
                file.lastWritten = forced;
                return file;
            }
            file.write(forced, false);
            file.write(forced, false);
            f.truncate(FILE_BYTES);
            f.force();
            file.durable = forced;
            file.lastWritten = forced;
            if (created) {
                AtomicFile.forceDirectory(dir);
            }
        } catch (IOException | RuntimeException e) {
            file.closeQuietly();
            throw e;
        }
        return file;
    }

    /** Records a completed force covering {@code forced} payloads; not forced (see the class comment). */
    void recordForced(long forced) throws IOException {
        if (forced != lastWritten) {
            write(forced, false);
            lastWritten = forced;
        }
    }

    /**
     * Records that the log failed and that every group beyond {@code forced} was refused, and
     * forces that as far as the disk allows.
     */
    void recordFailure(long forced) throws IOException {
        durable = -1;
        lastWritten = -1;
        write(forced, true);
        file.force();
    }

    /** Makes the file say {@code forced} (the whole log, at clean close) durably, and closes it. */
    void closeClean(long forced) throws IOException {
        try {
            if (durable != forced) {
                write(forced, false);
                file.force();
                durable = forced;
                lastWritten = forced;
            }
        } finally {
            file.close();
        }
    }

    Path path() {
        return path;
    }

    private void write(long forced, boolean failed) throws IOException {
        long gen = ++generation;
        INT.set(slot, 0, MAGIC);
        slot[4] = 1;
        slot[5] = (byte) (failed ? 1 : 0);
        slot[6] = 0;
        slot[7] = 0;
        LONG.set(slot, 8, gen);
        LONG.set(slot, 16, forced);
        INT.set(slot, 24, 0);
        CRC32C crc = new CRC32C();
        crc.update(slot, 0, SLOT_BYTES - 4);
        INT.set(slot, SLOT_BYTES - 4, (int) crc.getValue());
        file.write((gen & 1) * SLOT_BYTES, slot, 0, SLOT_BYTES);
    }

    void closeQuietly() {
        try {
            file.close();
        } catch (IOException ignored) {
            // closing after a failure; the file's state was decided by the last write
        }
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
