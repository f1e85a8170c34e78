package io.trailproof.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link SegmentLog#committedFiles}: the prefixes a backup copies open as a log of exactly that size. */
class CommittedFilesTest {

    @TempDir
    Path dir;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyGroupEndGivesPrefixesThatOpenAsALogOfThatSize() throws Exception {
        long[] ends = new long[8];
        int groups = 0;
        try (SegmentLog log = SegmentLog.open(dir.resolve("log"), 120)) {   // small segments: several files
            for (int g = 0; g < 6; g++) {
                if (g == 2) {
                    log.append(List.of(), List.of(b("side record alone")));
                    log.forceWritten();
                }
                List<byte[]> sides = g == 3 ? List.of(b("a side record in the group")) : List.of();
                long first = log.append(List.of(b("event " + g + "a"), b("event " + g + "b")), sides).first();
                log.awaitDurable(first + 2);
                ends[groups++] = first + 2;
            }
            assertThat(log.committedFiles(0)).isEmpty();
            for (int i = 0; i < groups; i++) {
                long size = ends[i];
                Path copy = dir.resolve("copy-" + size);
                Files.createDirectories(copy);
                for (FilePrefix p : log.committedFiles(size)) {
                    try (FileChannel in = FileChannel.open(p.file(), StandardOpenOption.READ);
                         FileChannel out = FileChannel.open(copy.resolve(p.name()), StandardOpenOption.CREATE_NEW,
                                 StandardOpenOption.WRITE)) {
                        ByteBuffer buf = ByteBuffer.allocate((int) p.bytes());
                        in.read(buf, 0);
                        out.write(buf.flip());
                    }
                }
                try (SegmentLog copied = SegmentLog.open(copy)) {
                    assertThat(copied.size()).as("size " + size).isEqualTo(size);
                    assertThat(copied.recoveredTailBytes()).isZero();
                    assertThat(copied.read(size - 1)).isEqualTo(log.read(size - 1));
                }
            }
            assertThat(log.committedFiles(ends[groups - 1]).size()).isGreaterThan(1);
            assertThatThrownBy(() -> log.committedFiles(1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not the end of a group");
            assertThatThrownBy(() -> log.committedFiles(log.size() + 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("durable");
        }
    }
}
