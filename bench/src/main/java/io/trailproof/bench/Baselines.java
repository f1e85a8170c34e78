package io.trailproof.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.zip.CRC32C;

/** The physical limits each figure is shown beside, measured in the same run on the same machine. */
final class Baselines {

    private Baselines() {
    }

    /** A stored event's size: what the log writes per event. */
    static byte[] storedSizedPayload() {
        String e = SampleEvents.event(123456, "agent-1");
        String stored = e.substring(0, e.length() - 1) + ",\"id\":\"019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00\",\"schema_version\":\"1.0\","
                + "\"sequence\":1234,\"prev_hash\":\"" + "ab".repeat(32) + "\",\"recorded_at\":\"2026-11-22T00:00:00.000000Z\","
                + "\"timestamp\":\"2026-11-22T00:00:00.000000Z\",\"hash\":\"" + "cd".repeat(32) + "\",\"log_index\":123456}";
        return stored.getBytes(StandardCharsets.UTF_8);
    }

    /** Frames of the same bytes appended to a plain file, forced after every 1,000: the disk's limit for us. */
    static double fileAppendBaseline(Path dir, byte[] payload, int frames) throws IOException {
        Path file = Files.createTempFile(dir, "baseline", ".seg");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer group = ByteBuffer.allocate(1000 * (payload.length + 8));
            long t0 = System.nanoTime();
            for (int f = 0; f < frames; f += 1000) {
                group.clear();
                for (int i = 0; i < 1000; i++) {
                    CRC32C crc = new CRC32C();
                    crc.update(payload);
                    group.putInt(payload.length).putInt((int) crc.getValue()).put(payload);
                }
                group.flip();
                while (group.hasRemaining()) {
                    ch.write(group);
                }
                ch.force(false);
            }
            return frames / ((System.nanoTime() - t0) / 1e9);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** SHA-256 over the same bytes, one event at a time: the CPU limit of hashing. */
    static double sha256Baseline(byte[] payload, int events) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < 100_000; i++) {
            sha.digest(payload);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < events; i++) {
            sha.digest(payload);
        }
        return events / ((System.nanoTime() - t0) / 1e9);
    }
}
