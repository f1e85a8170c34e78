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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

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
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        try (FileChannel out = FileChannel.open(dir.resolve("out"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            assertThatThrownBy(() -> CheckedCopy.copy(broken, out, readingAll(seen)))
                    .isInstanceOf(IOException.class).hasMessageContaining("connection reset");
        }
        assertThat(seen.get()).isInstanceOf(IOException.class).hasMessageContaining("broke off");
    }

    /**
     * A full disk in the middle of the copy is the copy's IOException, with what fitted written and
     * the check ended rather than left waiting: the backup command then deletes its part file.
     */
    @Test
    void aFullDiskStopsTheCopyWithItsError() throws Exception {
        byte[] data = new byte[CheckedCopy.BUFFERS * CheckedCopy.BUFFER_BYTES * 3 + 17];
        new Random(5).nextBytes(data);
        long room = CheckedCopy.BUFFER_BYTES * 2L + 123;
        CompletableFuture<Throwable> seen = new CompletableFuture<>();
        Path file = dir.resolve("full");
        try (FaultyFileChannel out = new FaultyFileChannel(FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), room)) {
            assertThatThrownBy(() -> CheckedCopy.copy(trickle(data), out, CheckedCopy.BUFFER_BYTES, readingAll(seen)))
                    .isInstanceOf(IOException.class).hasMessageContaining("No space left on device");
        }
        // (a background force cut short by the failure may have closed the channel: a FileChannel closes
        // when its thread is interrupted, which is why the size is read from the file)
        assertThat(Files.size(file)).isEqualTo(room);
        assertThat(seen.get(30, TimeUnit.SECONDS)).as("the check is told the copy broke off")
                .isInstanceOf(IOException.class);
    }

    /**
     * A background force that fails (a write-back error, which Linux reports to one fsync only) fails
     * the copy with that error, though every write succeeded and every byte was checked: a backup whose
     * bytes may not be on the disk is not a backup.
     */
    @Test
    void aFailedBackgroundForceFailsTheCopy() throws Exception {
        byte[] data = new byte[CheckedCopy.BUFFERS * CheckedCopy.BUFFER_BYTES * 3 + 17];
        new Random(6).nextBytes(data);
        try (FaultyFileChannel out = new FaultyFileChannel(FileChannel.open(dir.resolve("eio"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), Long.MAX_VALUE)) {
            out.failForces = true;
            assertThatThrownBy(() -> CheckedCopy.copy(trickle(data), out, CheckedCopy.BUFFER_BYTES, in -> sha256(in)))
                    .isInstanceOf(IOException.class).hasMessageContaining("Input/output error");
            assertThat(out.forces).isPositive();
        }
    }

    /** A check that reads to the end and records how its stream ended: null, or what it threw. */
    private static CheckedCopy.Check<Void> readingAll(CompletableFuture<Throwable> seen) {
        return in -> {
            try {
                in.readAllBytes();
                seen.complete(null);
            } catch (IOException e) {
                seen.complete(e);
            }
            return null;
        };
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
