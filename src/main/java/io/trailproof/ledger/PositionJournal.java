package io.trailproof.ledger;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UTFDataFormatException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Which agent each log position belongs to, as an append-only file ({@code DIR/positions}): one record
 * per snapshot, covering the log range the snapshot added, so writing a snapshot costs what
 * changed since the previous one, never the whole log.
 *
 * <p>Record: {@code int length, int crc32c, body}; body: {@code long from, long to, int firstNewAgent,
 * int newAgents, newAgents × UTF id, (to - from) × varint agent}. Agents are numbered in the order
 * the ledger met them; a record names the agents it introduces.
 *
 * <p><b>Durability and recovery.</b> {@link #append} forces the record before returning; the snapshot
 * that refers to it is written after, and records how many bytes of the journal it covers. On open
 * the journal is cut back to that length ({@link #cutTo}): a torn or orphaned record of a snapshot
 * that never got written is dropped, and the log re-read from the snapshot's end. Derived data:
 * a journal that fails its check is ignored and rebuilt from the log.
 */
final class PositionJournal {

    static final String FILE = "positions";

    /** Receives the journal's content in order. */
    interface Replay {
        void newAgent(int ordinal, String agentId) throws IOException;

        /** The agents of the events {@code [from, from + ordinals.length)}, all introduced before. */
        void events(long from, int[] ordinals) throws IOException;

        /** Agents introduced so far. */
        int agentCount();
    }

    /** The journal does not match what its snapshot says (damaged or from another log). */
    static final class JournalException extends IOException {
        JournalException(String message) {
            super(message);
        }
    }

    private PositionJournal() {
    }

    /**
     * Appends one record at byte {@code at} (anything after it is dropped) and forces it.
     *
     * @return the journal's length in bytes after the record
     */
    static long append(Path file, long at, long from, long to, int firstNewAgent, List<String> newAgents,
                       int[] ordinals) throws IOException {
        if (ordinals.length != to - from) {
            throw new IllegalArgumentException("a record of [" + from + ", " + to + ") needs " + (to - from)
                    + " agents, got " + ordinals.length);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(32 + ordinals.length * 2 + newAgents.size() * 24);
        DataOutputStream out = new DataOutputStream(body);
        out.writeLong(from);
        out.writeLong(to);
        out.writeInt(firstNewAgent);
        out.writeInt(newAgents.size());
        for (String id : newAgents) {
            out.writeUTF(id);
        }
        for (int o : ordinals) {
            writeVarInt(out, o);
        }
        out.flush();
        byte[] b = body.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(b);
        ByteBuffer record = ByteBuffer.allocate(8 + b.length);
        record.putInt(b.length).putInt((int) crc.getValue()).put(b).flip();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long pos = at;
            while (record.hasRemaining()) {
                pos += ch.write(record, pos);
            }
            if (ch.size() > pos) {
                ch.truncate(pos);
            }
            ch.force(false);
            return pos;
        }
    }

    /** Cuts the journal to its first {@code length} bytes (creating it empty when it is missing). */
    static void cutTo(Path file, long length) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            if (ch.size() > length) {
                ch.truncate(length);
                ch.force(false);
            }
        }
    }

    /**
     * Replays the first {@code length} bytes, which must cover exactly the log positions
     * {@code [0, logSize)}.
     *
     * @throws JournalException when a record fails its check, the records do not follow each other,
     *     or they do not end at {@code logSize}
     */
    static void replay(Path file, long length, long logSize, Replay visitor) throws IOException {
        if (length < 0) {
            throw new JournalException("the snapshot predates the position journal");
        }
        if (!Files.exists(file) || Files.size(file) < length) {
            throw new JournalException(file + " is shorter than the " + length + " bytes its snapshot covers");
        }
        long end = 0;
        int agents = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long pos = 0;
            ByteBuffer header = ByteBuffer.allocate(8);
            while (pos < length) {
                header.clear();
                readFully(ch, header, pos, length);
                int size = header.getInt(0);
                int crc = header.getInt(4);
                if (size < 24 || pos + 8 + size > length) {
                    throw new JournalException("record at byte " + pos + " of " + file + " has a bad length");
                }
                ByteBuffer body = ByteBuffer.allocate(size);
                readFully(ch, body, pos + 8, length);
                CRC32C check = new CRC32C();
                check.update(body.array());
                if ((int) check.getValue() != crc) {
                    throw new JournalException("record at byte " + pos + " of " + file + " fails its CRC");
                }
                end = replayRecord(body.array(), pos, file, end, agents, visitor);
                agents = visitor.agentCount();
                pos += 8 + size;
            }
        }
        if (end != logSize) {
            throw new JournalException(file + " covers " + end + " events, its snapshot " + logSize);
        }
    }

    /** One record's body; returns the log index it ends at. */
    private static long replayRecord(byte[] body, long pos, Path file, long end, int agents, Replay visitor)
            throws IOException {
        ByteBuffer in = ByteBuffer.wrap(body);
        try {
            long from = in.getLong();
            long to = in.getLong();
            int firstNew = in.getInt();
            int newCount = in.getInt();
            if (from != end || to < from || to - from > body.length || firstNew != agents || newCount < 0) {
                throw new JournalException("record at byte " + pos + " of " + file + " covers [" + from + ", "
                        + to + ") with agents from " + firstNew + "; expected it to start at " + end
                        + " with agent " + agents);
            }
            for (int i = 0; i < newCount; i++) {
                int length = 2 + (in.getShort(in.position()) & 0xffff);
                try (DataInputStream utf = new DataInputStream(new ByteArrayInputStream(body, in.position(), length))) {
                    visitor.newAgent(agents++, utf.readUTF());
                }
                in.position(in.position() + length);
            }
            int[] ordinals = new int[(int) (to - from)];
            int at = in.position();
            for (int k = 0; k < ordinals.length; k++) {
                int v = 0;
                for (int shift = 0; ; shift += 7) {
                    if (shift > 28) {
                        throw new JournalException("bad varint in record at byte " + pos + " of " + file);
                    }
                    int b = body[at++];
                    v |= (b & 0x7f) << shift;
                    if ((b & 0x80) == 0) {
                        break;
                    }
                }
                if (v < 0 || v >= agents) {
                    throw new JournalException("record at byte " + pos + " of " + file + " names agent " + v
                            + " before introducing it");
                }
                ordinals[k] = v;
            }
            if (at != body.length) {
                throw new JournalException("record at byte " + pos + " of " + file + " has " + (body.length - at)
                        + " bytes after its last position");
            }
            visitor.events(from, ordinals);
            return to;
        } catch (BufferUnderflowException | IndexOutOfBoundsException | UTFDataFormatException e) {
            throw new JournalException("record at byte " + pos + " of " + file + " ends early or is malformed: " + e);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer buffer, long at, long limit) throws IOException {
        long pos = at;
        while (buffer.hasRemaining()) {
            int n = ch.read(buffer, pos);
            if (n < 0 || pos + n > limit) {
                throw new JournalException("journal ends inside a record at byte " + at);
            }
            pos += n;
        }
        buffer.flip();
    }

    private static void writeVarInt(DataOutputStream out, int v) throws IOException {
        while ((v & ~0x7f) != 0) {
            out.writeByte((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.writeByte(v);
    }
}
