package io.trailproof.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Edits a log the way an attacker with write access to the disk would: payloads replaced, removed or
 * reordered, every CRC and commit frame recomputed so that the log itself looks intact. Knows the
 * frame layout of src/site/storage.md independently of the production code.
 */
public final class LogSurgeon {

    private static final int COMMIT_FLAG = 0x8000_0000;
    /** A side frame (an idempotency record): in a group, but no event. */
    private static final int SIDE_FLAG = 0x4000_0000;

    private LogSurgeon() {
    }

    /** The single segment file of a small test log. */
    public static Path onlySegment(Path dataDir) throws IOException {
        try (Stream<Path> files = Files.list(dataDir.resolve("log"))) {
            List<Path> segments = files.filter(p -> p.toString().endsWith(".seg")).sorted().toList();
            if (segments.size() != 1) {
                throw new IllegalStateException("expected one segment, found " + segments);
            }
            return segments.get(0);
        }
    }

    /** Every record payload of a segment, in order (commit and side frames skipped). */
    public static List<byte[]> records(Path segment) throws IOException {
        return frames(segment, false);
    }

    /** Every side frame payload of a segment, in order. */
    public static List<byte[]> sideRecords(Path segment) throws IOException {
        return frames(segment, true);
    }

    private static List<byte[]> frames(Path segment, boolean sides) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(segment));
        List<byte[]> out = new ArrayList<>();
        while (buf.remaining() >= 8) {
            int word = buf.getInt();
            buf.getInt();
            boolean commit = (word & COMMIT_FLAG) != 0;
            boolean side = !commit && (word & SIDE_FLAG) != 0;
            int len = word & ~(COMMIT_FLAG | SIDE_FLAG);
            byte[] payload = new byte[len];
            buf.get(payload);
            if (!commit && side == sides) {
                out.add(payload);
            }
        }
        return out;
    }

    /** Rewrites the segment with the edited records, each in a group of its own, all checks valid. */
    public static void rewrite(Path segment, UnaryOperator<List<byte[]>> edit) throws IOException {
        List<byte[]> records = edit.apply(new ArrayList<>(records(segment)));
        long base = Long.parseLong(segment.getFileName().toString().replace(".seg", ""));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long count = base;
        for (byte[] r : records) {
            frame(out, r.length, r);
            count++;
            byte[] commit = ByteBuffer.allocate(9).put((byte) 'C').putLong(count).array();
            frame(out, COMMIT_FLAG | 9, commit);
        }
        Files.write(segment, out.toByteArray());
        // The attacker also removes the log's record of how many events were on disk (the
        // forced-size file), which would otherwise stop the start as lost acknowledged data before
        // verification could name the edit.
        Files.deleteIfExists(segment.resolveSibling("forced-size"));
    }

    private static void frame(ByteArrayOutputStream out, int word, byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        out.writeBytes(ByteBuffer.allocate(8).putInt(word).putInt((int) crc.getValue()).array());
        out.writeBytes(payload);
    }
}
