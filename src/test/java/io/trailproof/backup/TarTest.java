package io.trailproof.backup;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TarTest {

    @TempDir
    Path dir;

    private static byte[] archive(String... nameAndContent) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out, 1_764_000_000L);
        for (int i = 0; i < nameAndContent.length; i += 2) {
            w.entry(nameAndContent[i], nameAndContent[i + 1].getBytes(StandardCharsets.UTF_8), 0644);
        }
        w.finish();
        return out.toByteArray();
    }

    private static List<String> read(byte[] tar) throws IOException {
        TarReader r = new TarReader(new ByteArrayInputStream(tar));
        List<String> out = new ArrayList<>();
        TarReader.Entry e;
        while ((e = r.next()) != null) {
            byte[] buf = new byte[(int) e.size()];
            int off = 0;
            int n;
            while (off < buf.length && (n = r.read(buf, off, buf.length - off)) > 0) {
                off += n;
            }
            out.add(e.name() + "=" + new String(buf, StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void roundTripsAndHasTheSizeItAnnounces() throws IOException {
        String big = "x".repeat(1500);
        byte[] tar = archive("MANIFEST.json", "{}", "log/00000000000000000000.seg", big, "empty", "");
        assertThat(tar.length).isEqualTo(TarWriter.archiveSize(2, 1500, 0));
        assertThat(tar.length % 512).isZero();
        assertThat(read(tar)).containsExactly("MANIFEST.json={}", "log/00000000000000000000.seg=" + big, "empty=");
    }

    @Test
    void theSystemTarReadsWhatWeWrite() throws Exception {
        Path system = Path.of("/usr/bin/tar");
        Assumptions.assumeTrue(Files.isExecutable(system), "no /usr/bin/tar");
        Path file = dir.resolve("a.tar");
        Files.write(file, archive("MANIFEST.json", "{\"a\":1}", "log/00000000000000000000.seg", "abc"));
        Process p = new ProcessBuilder(system.toString(), "-xf", file.toString(), "-C", dir.toString())
                .redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(new String(p.getInputStream().readAllBytes())).isZero();
        assertThat(Files.readString(dir.resolve("log/00000000000000000000.seg"))).isEqualTo("abc");
        assertThat(Files.readString(dir.resolve("MANIFEST.json"))).isEqualTo("{\"a\":1}");
    }

    @Test
    void everyTruncationIsRefusedAsTruncated() throws IOException {
        byte[] tar = archive("MANIFEST.json", "{}", "log/00000000000000000000.seg", "y".repeat(700));
        // Every cut before the end-of-archive marker, at and between block boundaries.
        for (int cut : new int[] {0, 100, 512, 600, 1024, 1030, 1536, 1600, 2048, 2100}) {
            byte[] part = Arrays.copyOf(tar, cut);
            assertThatThrownBy(() -> read(part)).as("cut at " + cut).isInstanceOf(TarReader.TarFormatException.class)
                    .hasMessageContaining("truncated");
        }
    }

    @Test
    void aDamagedHeaderFailsItsChecksum() throws IOException {
        byte[] tar = archive("MANIFEST.json", "{}");
        tar[3] ^= 1;
        assertThatThrownBy(() -> read(tar)).isInstanceOf(TarReader.TarFormatException.class).hasMessageContaining("checksum");
    }

    @Test
    void onlyRegularFilesAreRead() throws IOException {
        byte[] tar = archive("link", "");
        tar[156] = '2';   // a symbolic link, checksum recomputed
        fixChecksum(tar, 0);
        assertThatThrownBy(() -> read(tar)).isInstanceOf(TarReader.TarFormatException.class)
                .hasMessageContaining("not a regular file");
        byte[] pax = archive("x", "");
        pax[156] = 'x';   // a pax extended header
        fixChecksum(pax, 0);
        assertThatThrownBy(() -> read(pax)).isInstanceOf(TarReader.TarFormatException.class);
    }

    @Test
    void bytesAfterTheEndMarkerAreRefused() throws IOException {
        byte[] tar = archive("a", "1");
        byte[] longer = Arrays.copyOf(tar, tar.length + 512);
        longer[tar.length + 3] = 'z';
        assertThatThrownBy(() -> read(longer)).isInstanceOf(TarReader.TarFormatException.class)
                .hasMessageContaining("follow the end-of-archive");
        assertThat(read(Arrays.copyOf(tar, tar.length + 10240))).containsExactly("a=1");   // zero padding is fine
    }

    @Test
    void namesAndSizesOutsideUstarAreRefusedWhenWriting() {
        TarWriter w = new TarWriter(new ByteArrayOutputStream(), 0);
        assertThatThrownBy(() -> w.startEntry("n".repeat(101), 1, 0644)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> w.startEntry("big", TarWriter.MAX_SIZE + 1, 0644))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEntryMustGetExactlyItsDeclaredSize() throws IOException {
        TarWriter w = new TarWriter(new ByteArrayOutputStream(), 0);
        w.startEntry("a", 3, 0644);
        w.write(new byte[2], 0, 2);
        assertThatThrownBy(w::closeEntry).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> w.write(new byte[2], 0, 2)).isInstanceOf(IllegalStateException.class);
    }

    static void fixChecksum(byte[] tar, int headerAt) {
        byte[] h = Arrays.copyOfRange(tar, headerAt, headerAt + 512);
        String digits = String.format("%06o", TarWriter.checksum(h));
        byte[] field = (digits + "\0 ").getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(field, 0, tar, headerAt + 148, 8);
    }
}
