package io.trailproof.gate;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Every decision the gate has seen, by id, in a file mapped outside the Java heap, so that the
 * gate's heap does not grow with the number of decisions (src/site/gates.md#costs-and-limits). A row
 * holds what a binding check needs ({@link Row}: the effect, the arguments' digest, the expiry, the
 * answer to an ask and whether a call used it) and where the decision's events are in the log; what
 * is only shown (rule, reason, session, approver) is read back from those events.
 *
 * <p>Not durable, not crash-safe: the file is scratch, emptied when the table is opened and rebuilt
 * from the log by the gate's first pass; nothing written here needs to survive a stop. A write is
 * visible to the next read at once. Not thread-safe: the gate's state lock guards it.
 *
 * <p>Layout: an open-addressing hash table with linear probing over fixed rows of {@link #ROW_BYTES},
 * keyed by the first 16 bytes of the SHA-256 of the id's UTF-8 bytes (an id cannot be chosen to
 * collide with another's key). It doubles when it is half full, into a fresh file that replaces the
 * old one. Mapped in chunks of {@link #ROWS_PER_CHUNK} rows, so a table may pass 2 GiB.
 */
final class DecisionTable implements Closeable {

    /** The effect codes a row stores; {@code OTHER} is any other text (a binding treats it as a deny). */
    static final int ALLOW = 0, DENY = 1, ASK = 2, OTHER = 3;
    /** The answer codes a row stores. */
    static final int UNANSWERED = 0, APPROVED = 1, REFUSED = 2;

    static final int ROW_BYTES = 96;
    private static final int KEY_HI = 0, KEY_LO = 8, ARGS = 16, EXPIRES = 48, VALID_UNTIL = 56, DECISION_AT = 64,
            ANSWER_AT = 72, USED_AT = 80, EFFECT = 88, ANSWER = 89, HAS_ARGS = 90;
    static final int ROWS_PER_CHUNK = 1 << 16;
    private static final int FIRST_CAPACITY = 1 << 12;

    /** One decision's row; positions are log indexes, -1 when absent; times microseconds, -1 when absent. */
    record Row(int effect, byte[] argsSha256, long expiresAtMicros, int answer, long validUntilMicros,
               long decisionAt, long answerAt, long usedAt) {
    }

    private final Path file;
    private final Path growing;
    private FileChannel channel;
    private MappedByteBuffer[] chunks;
    private long capacity;
    private long size;
    private final MessageDigest sha256;

    private DecisionTable(Path file) {
        this.file = file;
        this.growing = file.resolveSibling(file.getFileName() + ".grow");
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    /** An empty table in {@code file}, replacing whatever the file held. */
    static DecisionTable open(Path file) throws IOException {
        DecisionTable t = new DecisionTable(file);
        Files.deleteIfExists(t.growing);
        t.map(file, FIRST_CAPACITY);
        return t;
    }

    /** Decisions held. */
    long size() {
        return size;
    }

    /** The row of {@code id}, or null when the table has none. */
    Row find(String id) {
        long[] key = key(id);
        long slot = slotOf(key);
        if (slot < 0) {
            return null;
        }
        ByteBuffer c = chunk(slot);
        int at = offset(slot);
        byte[] args = null;
        if (c.get(at + HAS_ARGS) != 0) {
            args = new byte[32];
            c.get(at + ARGS, args);
        }
        return new Row(c.get(at + EFFECT), args, c.getLong(at + EXPIRES), c.get(at + ANSWER),
                c.getLong(at + VALID_UNTIL), c.getLong(at + DECISION_AT), c.getLong(at + ANSWER_AT),
                c.getLong(at + USED_AT));
    }

    /** Adds a decision; false (and nothing changed) when the table already holds that id. */
    boolean add(String id, int effect, String argsSha256Hex, long expiresAtMicros, long decisionAt) {
        long[] key = key(id);
        if (slotOf(key) >= 0) {
            return false;
        }
        if ((size + 1) * 2 > capacity) {
            grow();
        }
        long slot = freeSlot(key);
        ByteBuffer c = chunk(slot);
        int at = offset(slot);
        c.putLong(at + KEY_HI, key[0]).putLong(at + KEY_LO, key[1]);
        byte[] args = digest(argsSha256Hex);
        if (args != null) {
            c.put(at + ARGS, args);
        }
        c.put(at + HAS_ARGS, (byte) (args == null ? 0 : 1));
        c.putLong(at + EXPIRES, expiresAtMicros).putLong(at + DECISION_AT, decisionAt)
                .putLong(at + VALID_UNTIL, -1).putLong(at + ANSWER_AT, -1).putLong(at + USED_AT, -1);
        c.put(at + EFFECT, (byte) effect).put(at + ANSWER, (byte) UNANSWERED);
        size++;
        return true;
    }

    /** Records the answer to the ask {@code id} (the table must hold it). */
    void answer(String id, boolean approved, long validUntilMicros, long answerAt) {
        long slot = existing(id);
        ByteBuffer c = chunk(slot);
        int at = offset(slot);
        c.put(at + ANSWER, (byte) (approved ? APPROVED : REFUSED));
        c.putLong(at + VALID_UNTIL, validUntilMicros).putLong(at + ANSWER_AT, answerAt);
    }

    /** Records the call that used decision {@code id} (the table must hold it). */
    void use(String id, long usedAt) {
        long slot = existing(id);
        chunk(slot).putLong(offset(slot) + USED_AT, usedAt);
    }

    /** Closes the mapping's file and deletes it. */
    @Override
    public void close() throws IOException {
        chunks = new MappedByteBuffer[0];
        channel.close();
        Files.deleteIfExists(file);
    }

    // ------------------------------------------------------------------ the hash table

    private long existing(String id) {
        long slot = slotOf(key(id));
        if (slot < 0) {
            throw new IllegalStateException("no decision " + id + " in the gate's table");
        }
        return slot;
    }

    /** The slot holding {@code key}, or -1. */
    private long slotOf(long[] key) {
        long mask = capacity - 1;
        for (long slot = (key[0] ^ key[1]) & mask; ; slot = (slot + 1) & mask) {
            ByteBuffer c = chunk(slot);
            int at = offset(slot);
            long hi = c.getLong(at + KEY_HI);
            long lo = c.getLong(at + KEY_LO);
            if (hi == 0 && lo == 0) {
                return -1;
            }
            if (hi == key[0] && lo == key[1]) {
                return slot;
            }
        }
    }

    private long freeSlot(long[] key) {
        long mask = capacity - 1;
        for (long slot = (key[0] ^ key[1]) & mask; ; slot = (slot + 1) & mask) {
            ByteBuffer c = chunk(slot);
            int at = offset(slot);
            if (c.getLong(at + KEY_HI) == 0 && c.getLong(at + KEY_LO) == 0) {
                return slot;
            }
        }
    }

    /** Rehashes every row into a table twice as large, in a fresh file that then takes this one's name. */
    private void grow() {
        FileChannel oldChannel = channel;
        MappedByteBuffer[] old = chunks;
        long oldCapacity = capacity;
        try {
            map(growing, oldCapacity * 2);
            for (long slot = 0; slot < oldCapacity; slot++) {
                ByteBuffer from = old[(int) (slot / ROWS_PER_CHUNK)];
                int at = (int) (slot % ROWS_PER_CHUNK) * ROW_BYTES;
                long[] key = {from.getLong(at + KEY_HI), from.getLong(at + KEY_LO)};
                if (key[0] == 0 && key[1] == 0) {
                    continue;
                }
                long to = freeSlot(key);
                byte[] row = new byte[ROW_BYTES];
                from.get(at, row);
                chunk(to).put(offset(to), row);
            }
            oldChannel.close();
            Files.move(growing, file, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            channel = oldChannel;
            chunks = old;
            capacity = oldCapacity;
            throw new UncheckedIOException("the gate's decision table cannot grow in " + file.getParent(), e);
        }
    }

    private void map(Path path, long rows) throws IOException {
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        long chunkRows = Math.min(rows, ROWS_PER_CHUNK);
        int count = (int) ((rows + chunkRows - 1) / chunkRows);
        List<MappedByteBuffer> mapped = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            mapped.add(ch.map(FileChannel.MapMode.READ_WRITE, i * chunkRows * ROW_BYTES, chunkRows * ROW_BYTES));
        }
        channel = ch;
        chunks = mapped.toArray(new MappedByteBuffer[0]);
        capacity = rows;
    }

    private ByteBuffer chunk(long slot) {
        return chunks[(int) (slot / ROWS_PER_CHUNK)];
    }

    private static int offset(long slot) {
        return (int) (slot % ROWS_PER_CHUNK) * ROW_BYTES;
    }

    /** The first 16 bytes of the id's SHA-256 as two longs, never both zero (zero marks a free row). */
    private long[] key(String id) {
        byte[] d = sha256.digest(id.getBytes(StandardCharsets.UTF_8));
        ByteBuffer b = ByteBuffer.wrap(d);
        long hi = b.getLong();
        long lo = b.getLong();
        return new long[] {hi, hi == 0 && lo == 0 ? 1 : lo};
    }

    /**
     * 32 bytes from 64 lower-case hex digits (the form the service writes, and the only form a call's
     * digest can equal); null for anything else: a row then holds no digest, and a call bound to it
     * fails the arguments check, as the text would have.
     */
    private static byte[] digest(String hex) {
        if (hex == null || hex.length() != 64) {
            return null;
        }
        try {
            byte[] d = HexFormat.of().parseHex(hex);
            return HexFormat.of().formatHex(d).equals(hex) ? d : null;
        } catch (IllegalArgumentException notHex) {
            return null;
        }
    }
}
