package io.trailproof.ledger;

import io.trailproof.store.AtomicFile;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The chain-head snapshot, the ledger's recovery record (not a signed checkpoint, which is
 * {@code io.trailproof.checkpoint}): how far into the log it reaches, the hash of the last event it covers,
 * how many bytes of the {@link PositionJournal} hold the positions of those events, and each agent's
 * head. Its size grows with the number of agents, not of events: the positions live in the journal,
 * which only grows by what changed.
 *
 * <p>Written only after every event it covers is durable, so {@link #logSize()} and
 * {@link #lastHash()} are also the record of what was acknowledged: a log that no longer reaches or
 * matches them lost acknowledged events. The rest is derived state: deleting the file loses nothing
 * but start time. Written with {@link AtomicFile} (old or new, never a mix); a CRC32C trailer catches
 * any other damage.
 *
 * <p><b>Format.</b> The current one ({@code TPK3}) lists the heads in the order the ledger met the
 * agents (their ordinals in the journal), each with the log position of its last event, and the
 * positions of a few agents in full ({@link Head#positions()}): a start restores every agent from it
 * alone and leaves the journal to be read after it ({@link PositionLoader}). The one before
 * ({@code TPK2}) lists the heads in no order, without positions: a start replays the journal first, as
 * it did before. The one before the journal ({@code TPK1}) says only what was acknowledged.
 */
record HeadSnapshot(long logSize, String lastHash, String lastRecordedAt, long journalBytes, List<Head> heads,
                    boolean inOrdinalOrder) {

    /** Its file in the data directory. */
    static final String FILE = "head-snapshot";
    /**
     * Its file before it was named a snapshot: read when {@link #FILE} is absent (a data directory of
     * an older version), deleted once a snapshot under the new name is written.
     */
    static final String LEGACY_FILE = "checkpoint";
    private static final int MAGIC = 0x54504b33; // "TPK3"
    /** The format whose heads are in no order and carry no position: the journal is replayed at start. */
    private static final int MAGIC_V2 = 0x54504b32;
    /** The format before the journal (positions inside): its head still says what was acknowledged. */
    private static final int MAGIC_V1 = 0x54504b31;
    /** {@link #journalBytes()} of a snapshot read from the old format: no journal, rebuild from the log. */
    static final long NO_JOURNAL = -1;

    /**
     * One agent's head, how many events it has up to {@link #logSize()} and the log position of the
     * last of them (-1 when unknown: a snapshot of the format before); {@code positions}, when not
     * null, holds every one of them in log order.
     */
    record Head(String agentId, long headSequence, String headHash, String lastRecordedAt, int eventCount,
                long lastPosition, long[] positions) {

        Head(String agentId, long headSequence, String headHash, String lastRecordedAt, int eventCount,
             long lastPosition) {
            this(agentId, headSequence, headHash, lastRecordedAt, eventCount, lastPosition, null);
        }

        Head withPositions(long[] all) {
            return new Head(agentId, headSequence, headHash, lastRecordedAt, eventCount, lastPosition, all);
        }
    }

    /**
     * Writes it to {@link #FILE} in {@code dataDir} (atomic: old or new), then removes a
     * {@link #LEGACY_FILE} left by an older version, so that the two can never disagree.
     */
    void writeIn(Path dataDir) throws IOException {
        write(dataDir.resolve(FILE));
        Files.deleteIfExists(dataDir.resolve(LEGACY_FILE));
    }

    /**
     * The snapshot in {@code dataDir}: {@link #FILE}, or when there is none the {@link #LEGACY_FILE}
     * an older version wrote (same format); null when there is neither or it is damaged. A
     * {@link #LEGACY_FILE} beside {@link #FILE} (a crash between {@link #writeIn}'s two steps) is
     * older than it and is removed.
     */
    static HeadSnapshot readIn(Path dataDir) throws IOException {
        Path file = dataDir.resolve(FILE);
        if (Files.exists(file)) {
            Files.deleteIfExists(dataDir.resolve(LEGACY_FILE));
            return read(file);
        }
        return read(dataDir.resolve(LEGACY_FILE));
    }

    private void write(Path file) throws IOException {
        if (!inOrdinalOrder) {
            throw new IllegalStateException("a snapshot is written with its heads in ordinal order");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + heads.size() * 140);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(MAGIC);
        out.writeLong(logSize);
        out.writeUTF(lastHash);
        out.writeUTF(lastRecordedAt);
        out.writeLong(journalBytes);
        out.writeInt(heads.size());
        for (Head h : heads) {
            out.writeUTF(h.agentId());
            out.writeLong(h.headSequence());
            out.writeUTF(h.headHash());
            out.writeUTF(h.lastRecordedAt());
            out.writeInt(h.eventCount());
            out.writeLong(h.lastPosition());
            long[] positions = h.positions();
            out.writeInt(positions == null ? -1 : positions.length);
            if (positions != null) {
                for (long p : positions) {
                    out.writeLong(p);
                }
            }
        }
        out.flush();
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        out.flush();
        AtomicFile.write(file, bytes.toByteArray());
    }

    /**
     * The snapshot in {@code file}, or null when there is none or it is damaged. One of the format
     * before the journal gives its log size and last hash (for the check of acknowledged events) and
     * {@link #NO_JOURNAL}.
     */
    private static HeadSnapshot read(Path file) throws IOException {
        byte[] all;
        try {
            all = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (all.length < 8) {
            return null;
        }
        CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - 4);
        int stored = ((all[all.length - 4] & 0xff) << 24) | ((all[all.length - 3] & 0xff) << 16)
                | ((all[all.length - 2] & 0xff) << 8) | (all[all.length - 1] & 0xff);
        if ((int) crc.getValue() != stored) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(all, 0, all.length - 4))) {
            int magic = in.readInt();
            if (magic == MAGIC_V1) {
                return new HeadSnapshot(in.readLong(), in.readUTF(), in.readUTF(), NO_JOURNAL, List.of(), false);
            }
            if (magic != MAGIC && magic != MAGIC_V2) {
                return null;
            }
            boolean current = magic == MAGIC;
            long logSize = in.readLong();
            String lastHash = in.readUTF();
            String lastRecordedAt = in.readUTF();
            long journalBytes = in.readLong();
            int agentCount = in.readInt();
            List<Head> heads = new ArrayList<>(agentCount);
            for (int i = 0; i < agentCount; i++) {
                Head h = new Head(in.readUTF(), in.readLong(), in.readUTF(), in.readUTF(), in.readInt(),
                        current ? in.readLong() : -1);
                int inline = current ? in.readInt() : -1;
                if (inline >= 0 && inline != h.eventCount()) {
                    return null;
                }
                if (inline >= 0) {
                    long[] positions = new long[inline];
                    for (int k = 0; k < inline; k++) {
                        positions[k] = in.readLong();
                    }
                    h = h.withPositions(positions);
                }
                heads.add(h);
            }
            return new HeadSnapshot(logSize, lastHash, lastRecordedAt, journalBytes, heads, current);
        }
    }

    @Override
    public String toString() {
        return "HeadSnapshot[logSize=" + logSize + ", agents=" + heads.size() + ", journalBytes=" + journalBytes
                + ", inOrdinalOrder=" + inOrdinalOrder + "]";
    }
}
