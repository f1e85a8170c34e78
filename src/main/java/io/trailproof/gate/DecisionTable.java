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
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Every decision the gate has seen, by id, with its row in a file mapped outside the Java heap, so
 * that the gate's heap does not grow with what it knows of each decision
 * (src/site/gates.md#costs-and-limits). A row holds what a binding check needs ({@link Row}: the
 * effect, the arguments' digest, the expiry, the answer to an ask and whether a call used it) and
 * where the decision's events are in the log; what is only shown (rule, reason, session, approver)
 * is read back from those events.
 *
 * <p>Not durable, not crash-safe: the file is scratch, emptied when the table is opened and rebuilt
 * from the log by the gate's first pass; nothing written here needs to survive a stop. A write is
 * visible to the next read at once. Not thread-safe: the gate's state lock guards it.
 *
 * <p>Layout: rows of {@link #ROW_BYTES} appended in the order decisions are added (so the pages the
 * operating system writes back are the few at the end, and the answer and use of a recent decision
 * land on them too), mapped in chunks of {@link #ROWS_PER_CHUNK} rows. A row starts with its key,
 * the first 16 bytes of the SHA-256 of the id's UTF-8 bytes (an id cannot be chosen to collide with
 * another's key). The index from key to row is one {@code long[]} on the heap, 8 bytes a slot at most
 * half full (16 to 32 bytes a decision, in a primitive array the collector never traces): open
 * addressing with linear probing, each slot the row's number and 32 bits of its key, the full key
 * compared in the row.
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
    private static final int FIRST_SLOTS = 1 << 12;
    /** The most slots the index may have: a Java array holds fewer than 2^31 elements. */
    private static final int MAX_SLOTS = 1 << 30;

    /** One decision's row; positions are log indexes, -1 when absent; times microseconds, -1 when absent. */
    record Row(int effect, byte[] argsSha256, long expiresAtMicros, int answer, long validUntilMicros,
               long decisionAt, long answerAt, long usedAt) {
    }

    private final Path file;
    private final List<MappedByteBuffer> chunks = new ArrayList<>();
    /** 0 for a free slot, else {@code (row + 1) << 32 | the key's first 32 bits}. */
    private long[] slots = new long[FIRST_SLOTS];
    private int size;
    private final MessageDigest sha256;
    /** See {@link #key}. */
    private String lastId;
    private long[] lastKey;

    private DecisionTable(Path file) {
        this.file = file;
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    /** An empty table in {@code file}, replacing whatever the file held. */
    static DecisionTable open(Path file) throws IOException {
        FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING).close();
        return new DecisionTable(file);
    }

    /** Decisions held. */
    long size() {
        return size;
    }

    /** The row of {@code id}, or null when the table has none. */
    Row find(String id) {
        int slot = slotOf(key(id));
        if (slot < 0) {
            return null;
        }
        int row = rowIn(slots[slot]);
        ByteBuffer c = chunk(row);
        int at = offset(row);
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
        if ((size + 1L) * 2 > slots.length) {
            grow();
        }
        int row = size;
        if (row / ROWS_PER_CHUNK == chunks.size()) {
            mapChunk();
        }
        ByteBuffer c = chunk(row);
        int at = offset(row);
        c.putLong(at + KEY_HI, key[0]).putLong(at + KEY_LO, key[1]);
        byte[] args = digest(argsSha256Hex);
        if (args != null) {
            c.put(at + ARGS, args);
        }
        c.put(at + HAS_ARGS, (byte) (args == null ? 0 : 1));
        c.putLong(at + EXPIRES, expiresAtMicros).putLong(at + DECISION_AT, decisionAt)
                .putLong(at + VALID_UNTIL, -1).putLong(at + ANSWER_AT, -1).putLong(at + USED_AT, -1);
        c.put(at + EFFECT, (byte) effect).put(at + ANSWER, (byte) UNANSWERED);
        slots[freeSlot(tag(key))] = ((long) (row + 1) << 32) | (tag(key) & 0xFFFF_FFFFL);
        size++;
        return true;
    }

    /** Records the answer to the ask {@code id} (the table must hold it). */
    void answer(String id, boolean approved, long validUntilMicros, long answerAt) {
        int row = existing(id);
        ByteBuffer c = chunk(row);
        int at = offset(row);
        c.put(at + ANSWER, (byte) (approved ? APPROVED : REFUSED));
        c.putLong(at + VALID_UNTIL, validUntilMicros).putLong(at + ANSWER_AT, answerAt);
    }

    /** Records the call that used decision {@code id} (the table must hold it). */
    void use(String id, long usedAt) {
        int row = existing(id);
        chunk(row).putLong(offset(row) + USED_AT, usedAt);
    }

    /** Empties the table and deletes its file (the mappings go with the buffers). */
    @Override
    public void close() throws IOException {
        chunks.clear();
        slots = new long[FIRST_SLOTS];
        size = 0;
        Files.deleteIfExists(file);
    }

    // ------------------------------------------------------------------ the index

    private int existing(String id) {
        int slot = slotOf(key(id));
        if (slot < 0) {
            throw new IllegalStateException("no decision " + id + " in the gate's table");
        }
        return rowIn(slots[slot]);
    }

    /** The slot whose row holds {@code key}, or -1. */
    private int slotOf(long[] key) {
        int tag = tag(key);
        int mask = slots.length - 1;
        for (int slot = tag & mask; ; slot = (slot + 1) & mask) {
            long s = slots[slot];
            if (s == 0) {
                return -1;
            }
            if ((int) s == tag) {
                int row = rowIn(s);
                ByteBuffer c = chunk(row);
                int at = offset(row);
                if (c.getLong(at + KEY_HI) == key[0] && c.getLong(at + KEY_LO) == key[1]) {
                    return slot;
                }
            }
        }
    }

    private int freeSlot(int tag) {
        int mask = slots.length - 1;
        int slot = tag & mask;
        while (slots[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    /** An index twice as large, each slot placed again by the 32 bits of its key it holds: no row is read. */
    private void grow() {
        if (slots.length >= MAX_SLOTS) {
            throw new IllegalStateException("the gate's decision table holds its most decisions, " + size);
        }
        long[] old = slots;
        slots = new long[old.length * 2];
        for (long s : old) {
            if (s != 0) {
                slots[freeSlot((int) s)] = s;
            }
        }
    }

    /**
     * Maps the next chunk of rows, its space written with zeros first: a full disk is then an error
     * here, where a write into a mapped hole of the file would be a fault in memory. Each chunk gets a
     * channel of its own, closed at once (a mapping outlives its channel), so that an interrupted
     * thread, whose channel Java closes, leaves no other chunk without one.
     */
    private void mapChunk() {
        long start = (long) chunks.size() * ROWS_PER_CHUNK * ROW_BYTES;
        long end = start + (long) ROWS_PER_CHUNK * ROW_BYTES;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocate(1 << 16);
            for (long at = start; at < end; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), end - at));
                at += ch.write(zeros, at);
            }
            chunks.add(ch.map(FileChannel.MapMode.READ_WRITE, start, end - start));
        } catch (IOException e) {
            throw new UncheckedIOException("the gate's decision table cannot grow in " + file.getParent(), e);
        }
    }

    private ByteBuffer chunk(int row) {
        return chunks.get(row / ROWS_PER_CHUNK);
    }

    private static int offset(int row) {
        return (row % ROWS_PER_CHUNK) * ROW_BYTES;
    }

    private static int rowIn(long slot) {
        return (int) (slot >>> 32) - 1;
    }

    /** The key's first 32 bits: the index's hash (the key is a digest, so its bits are already spread). */
    private static int tag(long[] key) {
        return (int) (key[0] >>> 32);
    }

    /**
     * The first 16 bytes of the id's SHA-256 as two longs. The last id's key is kept: a decision is
     * looked up and then added, answered or used, each by its id, and is hashed once for all of them.
     */
    private long[] key(String id) {
        if (!id.equals(lastId)) {
            byte[] d = sha256.digest(id.getBytes(StandardCharsets.UTF_8));
            ByteBuffer b = ByteBuffer.wrap(d);
            lastKey = new long[] {b.getLong(), b.getLong()};
            lastId = id;
        }
        return lastKey;
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
