package io.trailproof.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.ExecutionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckedCopyTest {

    @TempDir
    Path dir;

    /** More than the ring holds, in odd-sized reads: the file and the check both see every byte in order. */
    @Test
    void theFileAndTheCheckGetTheSameBytes() throws Exception {
        byte[] data = new byte[CheckedCopy.BUFFERS * CheckedCopy.BUFFER_BYTES * 3 + 12_345];
        new Random(7).nextBytes(data);
        Path file = dir.resolve("out");
        CheckedCopy.Result<String> r;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            r = CheckedCopy.copy(trickle(data), out, in -> sha256(in));
        }
        assertThat(r.bytes()).isEqualTo(data.length);
        assertThat(r.checked()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)));
        assertThat(Files.readAllBytes(file)).isEqualTo(data);
    }

    /** Forcing in the background while copying changes nothing in what is written or checked. */
    @Test
    void forcingAsItGoesKeepsEveryByte() throws Exception {
        byte[] data = new byte[CheckedCopy.BUFFERS * CheckedCopy.BUFFER_BYTES * 2 + 999];
        new Random(11).nextBytes(data);
        Path file = dir.resolve("forced");
        CheckedCopy.Result<String> r;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            r = CheckedCopy.copy(trickle(data), out, CheckedCopy.BUFFER_BYTES, in -> sha256(in));
        }
        assertThat(r.bytes()).isEqualTo(data.length);
        assertThat(r.checked()).isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)));
        assertThat(Files.readAllBytes(file)).isEqualTo(data);
    }

    /** A check that refuses stops the copy: its exception is the outcome, not a hang. */
    @Test
    void aFailingCheckStopsTheCopy() throws Exception {
        byte[] data = new byte[CheckedCopy.BUFFERS * CheckedCopy.BUFFER_BYTES * 4];
        try (FileChannel out = FileChannel.open(dir.resolve("out"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertThatThrownBy(() -> CheckedCopy.copy(trickle(data), out, in -> {
                in.readNBytes(1000);
                throw new IllegalStateException("refused");
            })).isInstanceOf(ExecutionException.class).hasRootCauseMessage("refused");
            assertThat(out.size()).isLessThan(data.length);
        }
    }

    /** A source that breaks off is an IOException, and the check is told the stream broke, not that it ended. */
    @Test
    void aBrokenSourceIsAnErrorForBoth() throws Exception {
        ReadableByteChannel broken = new ReadableByteChannel() {
            int calls;

            @Override
            public int read(ByteBuffer dst) throws IOException {
                if (calls++ > 3) {
                    throw new IOException("connection reset");
                }
                dst.put((byte) 1);
                return 1;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        java.util.concurrent.CompletableFuture<Throwable> seen = new java.util.concurrent.CompletableFuture<>();
        try (FileChannel out = FileChannel.open(dir.resolve("out"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertThatThrownBy(() -> CheckedCopy.copy(broken, out, in -> {
                try {
                    in.readAllBytes();
                    seen.complete(null);
                } catch (IOException e) {
                    seen.complete(e);
                }
                return null;
            })).isInstanceOf(IOException.class).hasMessageContaining("connection reset");
        }
        assertThat(seen.get()).isInstanceOf(IOException.class).hasMessageContaining("broke off");
    }

    private static ReadableByteChannel trickle(byte[] data) {
        ReadableByteChannel all = Channels.newChannel(new ByteArrayInputStream(data));
        return new ReadableByteChannel() {
            int turn;

            @Override
            public int read(ByteBuffer dst) throws IOException {
                int limit = dst.limit();
                dst.limit(dst.position() + Math.min(dst.remaining(), 1 + (turn++ * 7919) % 300_000));
                try {
                    return all.read(dst);
                } finally {
                    dst.limit(limit);
                }
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    private static String sha256(InputStream in) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[65536];
        int n;
        while ((n = in.read(buf)) > 0) {
            md.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(md.digest());
    }
}
