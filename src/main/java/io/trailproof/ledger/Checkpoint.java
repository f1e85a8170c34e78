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
 * The chain-head checkpoint: how far into the log it reaches, the hash of the last event it covers
 * (so a checkpoint that no longer matches the log is noticed and ignored), and each agent's head and
 * event positions. Derived state: deleting it loses nothing, the next start re-reads the log.
 * Written with {@link AtomicFile}, so it is either the old or the new one, never a mix; a CRC32C
 * trailer catches any other damage.
 */
record Checkpoint(long logSize, String lastHash, String lastRecordedAt, List<Agent> agents) {

    private static final int MAGIC = 0x54504b31; // "TPK1"

    record Agent(String agentId, long headSequence, String headHash, String lastRecordedAt, long[] positions) {
    }

    void write(Path file) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(MAGIC);
        out.writeLong(logSize);
        out.writeUTF(lastHash);
        out.writeUTF(lastRecordedAt);
        out.writeInt(agents.size());
        for (Agent a : agents) {
            out.writeUTF(a.agentId());
            out.writeLong(a.headSequence());
            out.writeUTF(a.headHash());
            out.writeUTF(a.lastRecordedAt());
            out.writeInt(a.positions().length);
            long previous = -1;
            for (long p : a.positions()) {
                writeVarLong(out, p - previous);
                previous = p;
            }
        }
        out.flush();
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        out.writeInt((int) crc.getValue());
        out.flush();
        AtomicFile.write(file, bytes.toByteArray());
    }

    /** The checkpoint in {@code file}, or null when there is none or it is damaged. */
    static Checkpoint read(Path file) throws IOException {
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
            if (in.readInt() != MAGIC) {
                return null;
            }
            long logSize = in.readLong();
            String lastHash = in.readUTF();
            String lastRecordedAt = in.readUTF();
            int agentCount = in.readInt();
            List<Agent> agents = new ArrayList<>(agentCount);
            for (int i = 0; i < agentCount; i++) {
                String id = in.readUTF();
                long headSequence = in.readLong();
                String headHash = in.readUTF();
                String recordedAt = in.readUTF();
                int n = in.readInt();
                long[] positions = new long[n];
                long previous = -1;
                for (int j = 0; j < n; j++) {
                    previous += readVarLong(in);
                    positions[j] = previous;
                }
                agents.add(new Agent(id, headSequence, headHash, recordedAt, positions));
            }
            return new Checkpoint(logSize, lastHash, lastRecordedAt, agents);
        }
    }

    private static void writeVarLong(DataOutputStream out, long v) throws IOException {
        while ((v & ~0x7fL) != 0) {
            out.writeByte((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.writeByte((int) v);
    }

    private static long readVarLong(DataInputStream in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IOException("bad varint in checkpoint");
    }

    @Override
    public String toString() {
        return "Checkpoint[logSize=" + logSize + ", agents=" + agents.size() + "]";
    }


}
