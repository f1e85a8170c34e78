package io.trailproof.backup;

import io.trailproof.testing.ByteSearch;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerOptions;
import io.trailproof.timestamp.LogTimestampStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Backup of an open ledger and restore of it, in process; the refusals leave the target absent or empty. */
class BackupRestoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-25T19:00:00Z"), ZoneOffset.UTC);

    @TempDir
    Path tmp;
    private Path data;
    private Ledger ledger;
    private LogTimestampStore stamps;
    private OnlineBackup backup;

    @BeforeEach
    void open() throws Exception {
        data = tmp.resolve("data");
        // Small segments, so that a backup spans several of them and cuts the last one.
        ledger = Ledger.open(data, new LedgerOptions(4096, 50), CLOCK, new Random(1));
        stamps = LogTimestampStore.open(data.resolve("timestamps"));
        Files.createDirectories(data.resolve("keys"));
        Files.writeString(data.resolve("keys/checkpoint.key"), "PRIVATE+KEY+test+00000000+AQ==\n");
        Files.createDirectories(data.resolve("tlog"));
        Files.writeString(data.resolve("tlog/checkpoint"), "test\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n");
        backup = new OnlineBackup(data, ledger, stamps::committedFiles, CLOCK);
        for (int i = 0; i < 30; i++) {
            ledger.append(List.of(event("a" + (i % 3), i), event("b", i)));
        }
    }

    @AfterEach
    void close() throws IOException {
        stamps.close();
        ledger.close();
    }

    private static ObjectNode event(String agent, int i) {
        return JSON.createObjectNode().put("agent_id", agent).put("action_type", "tool_call").put("n", i);
    }

    private byte[] tar() throws IOException {
        Snapshot s = backup.capture();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        s.writeTo(out);
        assertThat((long) out.size()).isEqualTo(s.archiveBytes());
        return out.toByteArray();
    }

    private BackupManifest restore(byte[] tar, Path target) throws Exception {
        return Restore.run(new ByteArrayInputStream(tar), target, done -> { });
    }

    @Test
    void aRestoredLedgerHasTheBackupsRootAtItsSizeAndGrowsFromThere() throws Exception {
        long size = ledger.size();
        byte[] root = ledger.root(size);
        byte[] tar = tar();
        ledger.append(List.of(event("later", 0)));   // after the backup: not in it
        Path target = tmp.resolve("restored");
        BackupManifest m = restore(tar, target);
        assertThat(m.treeSize()).isEqualTo(size);
        assertThat(m.root()).isEqualTo(HexFormat.of().formatHex(root));
        assertThat(m.files().stream().map(BackupManifest.FileEntry::name))
                .contains("log/00000000000000000000.seg", "keys/checkpoint.key", "tlog/checkpoint")
                .noneMatch(n -> n.contains("forced-size") || n.startsWith("merkle") || n.startsWith("index"));
        assertThat(Files.readString(target.resolve("keys/checkpoint.key"))).startsWith("PRIVATE+KEY+test");
        assertThat(Files.list(tmp).map(p -> p.getFileName().toString())).doesNotContain(".restored.restoring-");
        try (Ledger restored = Ledger.open(target, new LedgerOptions(4096, 50), CLOCK, new Random(2))) {
            assertThat(restored.size()).isEqualTo(size);
            assertThat(restored.root(size)).isEqualTo(root);
            assertThat(restored.verifyAll()).isEqualTo(4);
            restored.append(List.of(event("a0", 99)));
            assertThat(restored.size()).isEqualTo(size + 1);
        }
    }

    @Test
    void eventsAppendedWhileTheTarIsWrittenAreNotInItAndTheNextBackupDigestsOnlyTheNewBytes() throws Exception {
        Snapshot first = backup.capture();
        long size = first.manifest().treeSize();
        for (int i = 0; i < 20; i++) {   // after the capture, before and while the tar is written
            ledger.append(List.of(event("c", i)));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        first.writeTo(out);
        assertThat(restore(out.toByteArray(), tmp.resolve("first")).treeSize()).isEqualTo(size);
        try (Ledger r = Ledger.open(tmp.resolve("first"), new LedgerOptions(4096, 50), CLOCK, new Random(3))) {
            assertThat(r.size()).isEqualTo(size);
            assertThat(r.root(size)).isEqualTo(ledger.root(size));
        }
        // The second capture continues the kept digest states of the segments the first one cut.
        Snapshot second = backup.capture();
        assertThat(second.manifest().treeSize()).isEqualTo(size + 20);
        ByteArrayOutputStream out2 = new ByteArrayOutputStream();
        second.writeTo(out2);
        BackupManifest m = restore(out2.toByteArray(), tmp.resolve("second"));   // checks every digest
        assertThat(m.root()).isEqualTo(HexFormat.of().formatHex(ledger.root(size + 20)));
        Snapshot fresh = new OnlineBackup(data, ledger, stamps::committedFiles, CLOCK).capture();
        assertThat(fresh.manifest().files()).isEqualTo(second.manifest().files());
    }

    @Test
    void theLogInTheBackupEndsAtACommittedPointEvenMidSegment() throws Exception {
        Snapshot s = backup.capture();
        long logBytes = s.manifest().files().stream().filter(f -> f.name().startsWith("log/"))
                .mapToLong(BackupManifest.FileEntry::size).sum();
        long onDisk;
        try (Stream<Path> files = Files.list(data.resolve("log"))) {
            onDisk = files.filter(f -> f.toString().endsWith(".seg")).mapToLong(f -> f.toFile().length()).sum();
        }
        assertThat(logBytes).isEqualTo(onDisk);   // nothing was written since: the whole log
        assertThat(s.manifest().files().stream().filter(f -> f.name().startsWith("log/")).count()).isGreaterThan(1);
    }

    @Test
    void anEmptyLogBacksUpAndRestores() throws Exception {
        Path emptyData = tmp.resolve("empty");
        try (Ledger empty = Ledger.open(emptyData, new LedgerOptions(4096, 50), CLOCK, new Random(1))) {
            Snapshot s = new OnlineBackup(emptyData, empty, List::of, CLOCK).capture();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.writeTo(out);
            BackupManifest m = restore(out.toByteArray(), tmp.resolve("r"));
            assertThat(m.treeSize()).isZero();
        }
        try (Ledger r = Ledger.open(tmp.resolve("r"), new LedgerOptions(4096, 50), CLOCK, new Random(1))) {
            assertThat(r.size()).isZero();
        }
    }

    @Test
    void restoresIntoAnEmptyDirectoryButNeverANonEmptyOne() throws Exception {
        byte[] tar = tar();
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        restore(tar, empty);
        assertThat(empty.resolve("log")).isDirectory();
        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("keep.txt"), "mine");
        assertThatThrownBy(() -> restore(tar, full)).isInstanceOf(RestoreRefused.class)
                .hasMessageContaining("is not empty").matches(e -> ((RestoreRefused) e).targetProblem());
        assertThat(Files.list(full).toList()).containsExactly(full.resolve("keep.txt"));
        Path file = Files.writeString(tmp.resolve("afile"), "x");
        assertThatThrownBy(() -> restore(tar, file)).isInstanceOf(RestoreRefused.class).hasMessageContaining("not a directory");
    }

    @Test
    void aTruncatedBackupIsRefusedAndLeavesNothing() throws Exception {
        byte[] tar = tar();
        for (int cut : new int[] {tar.length - 1024, tar.length / 2, 700, 0}) {
            Path target = tmp.resolve("t" + cut);
            assertThatThrownBy(() -> restore(Arrays.copyOf(tar, cut), target)).as("cut " + cut)
                    .isInstanceOf(RestoreRefused.class).hasMessageMatching("(?s).*(truncated|not a trailproof backup).*");
            assertRefusedLeftNothing(target);
        }
    }

    @Test
    void anAlteredByteIsRefused() throws Exception {
        byte[] tar = tar();
        int at = ByteSearch.indexOf(tar, "\"n\":17".getBytes(StandardCharsets.UTF_8));
        tar[at + 5] = '8';
        Path target = tmp.resolve("altered");
        assertThatThrownBy(() -> restore(tar, target)).isInstanceOf(RestoreRefused.class)
                .hasMessageContaining("does not match its SHA-256");
        assertRefusedLeftNothing(target);
    }

    @Test
    void anAlteredEventWithMatchingDigestsIsRefusedByTheRoot() throws Exception {
        // An attacker who rewrites an event, its frame's CRC and the manifest's digests: the event no
        // longer hashes to its hash. (Rewriting the hash too changes the root.)
        Snapshot s = backup.capture();
        Path seg = data.resolve("log/00000000000000000000.seg");
        byte[] original = Files.readAllBytes(seg);
        Path copy = tmp.resolve("evil");
        Files.createDirectories(copy);
        byte[] evil = original.clone();
        int at = ByteSearch.indexOf(evil, "\"n\":1,".getBytes(StandardCharsets.UTF_8));
        evil[at + 4] = '7';
        fixFrameCrc(evil, at);
        List<BackupManifest.FileEntry> files = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out, 0);
        for (BackupManifest.FileEntry f : s.manifest().files()) {
            byte[] content = f.name().equals("log/00000000000000000000.seg")
                    ? Arrays.copyOf(evil, (int) f.size()) : Files.readAllBytes(data.resolve(f.name()));
            content = Arrays.copyOf(content, (int) f.size());
            files.add(new BackupManifest.FileEntry(f.name(), f.size(), OnlineBackup.sha256(content)));
        }
        BackupManifest forged = new BackupManifest(s.manifest().createdAt(), s.manifest().treeSize(), s.manifest().root(),
                files);
        w.entry(BackupManifest.NAME, forged.toJson(), 0644);
        for (BackupManifest.FileEntry f : files) {
            byte[] content = f.name().equals("log/00000000000000000000.seg") ? evil : Files.readAllBytes(data.resolve(f.name()));
            w.entry(f.name(), Arrays.copyOf(content, (int) f.size()), 0644);
        }
        w.finish();
        Path target = tmp.resolve("forged");
        assertThatThrownBy(() -> restore(out.toByteArray(), target)).isInstanceOf(RestoreRefused.class)
                .hasMessageContaining("no longer hashes to its stored hash");
        assertRefusedLeftNothing(target);
    }

    @Test
    void aWrongRootIsRefused() throws Exception {
        Snapshot s = backup.capture();
        BackupManifest m = s.manifest();
        BackupManifest wrong = new BackupManifest(m.createdAt(), m.treeSize(), "00".repeat(32), m.files());
        Path target = tmp.resolve("wrongroot");
        assertThatThrownBy(() -> restore(rewrite(wrong, null, null), target)).isInstanceOf(RestoreRefused.class)
                .hasMessageContaining("not the manifest's");
        assertRefusedLeftNothing(target);
        BackupManifest shorter = new BackupManifest(m.createdAt(), m.treeSize() - 1, m.root(), m.files());
        assertThatThrownBy(() -> restore(rewrite(shorter, null, null), target)).isInstanceOf(RestoreRefused.class)
                .hasMessageContaining("holds " + m.treeSize() + " events");
        assertRefusedLeftNothing(target);
    }

    @Test
    void aMissingFileAnExtraEntryAndPathTraversalAreRefused() throws Exception {
        BackupManifest m = backup.capture().manifest();
        Path target = tmp.resolve("bad");
        assertThatThrownBy(() -> restore(rewrite(m, "tlog/checkpoint", null), target)).isInstanceOf(RestoreRefused.class)
                .hasMessageContaining("lacks tlog/checkpoint");
        assertRefusedLeftNothing(target);
        for (String extra : new String[] {"notes.txt", "../escape", "/tmp/abs", "log/../../escape.seg",
                "tlog/checkpoint"}) {
            assertThatThrownBy(() -> restore(rewrite(m, null, extra), target)).as(extra).isInstanceOf(RestoreRefused.class)
                    .hasMessageMatching("(?s).*(unexpected entry|twice).*");
            assertRefusedLeftNothing(target);
        }
        assertThat(tmp.resolve("escape")).doesNotExist();
    }

    /** The backup's files under {@code manifest}, without {@code drop} and with an extra entry {@code extra}. */
    private byte[] rewrite(BackupManifest manifest, String drop, String extra) throws IOException {
        Snapshot s = backup.capture();
        ByteArrayOutputStream original = new ByteArrayOutputStream();
        s.writeTo(original);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TarWriter w = new TarWriter(out, 0);
        TarReader r = new TarReader(new ByteArrayInputStream(original.toByteArray()));
        TarReader.Entry e;
        while ((e = r.next()) != null) {
            byte[] content = new byte[(int) e.size()];
            int off = 0;
            while (off < content.length) {
                off += r.read(content, off, content.length - off);
            }
            if (e.name().equals(BackupManifest.NAME)) {
                content = manifest.toJson();
            }
            if (!e.name().equals(drop)) {
                w.entry(e.name(), content, 0644);
            }
        }
        if (extra != null) {
            writeRawName(out, w, extra);
        }
        w.finish();
        return out.toByteArray();
    }

    /** An entry whose name the writer would refuse to build is still written, as an attacker would. */
    private static void writeRawName(ByteArrayOutputStream out, TarWriter w, String name) throws IOException {
        w.entry("placeholder-" + "x".repeat(Math.max(0, name.length() - 12)), "evil".getBytes(StandardCharsets.UTF_8), 0644);
        byte[] all = out.toByteArray();
        int header = all.length - 1024;
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        Arrays.fill(all, header, header + 100, (byte) 0);
        System.arraycopy(n, 0, all, header, n.length);
        TarTest.fixChecksum(all, header);
        out.reset();
        out.write(all);
    }

    private static void assertRefusedLeftNothing(Path target) throws IOException {
        assertThat(!Files.exists(target) || isEmptyDir(target)).as(target + " absent or empty").isTrue();
        try (Stream<Path> siblings = Files.list(target.toAbsolutePath().getParent())) {
            assertThat(siblings.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".restoring-"));
        }
    }

    private static boolean isEmptyDir(Path p) throws IOException {
        try (Stream<Path> s = Files.list(p)) {
            return s.findAny().isEmpty();
        }
    }


    /** Recomputes the CRC32C of the record frame holding byte {@code inside} (frames: [len][crc][payload]). */
    private static void fixFrameCrc(byte[] seg, int inside) {
        int pos = 0;
        while (true) {
            int word = ByteBuffer.wrap(seg, pos, 4).getInt();
            int len = word & 0x3fffffff;
            if (inside < pos + 8 + len) {
                CRC32C crc = new CRC32C();
                crc.update(seg, pos + 8, len);
                ByteBuffer.wrap(seg, pos + 4, 4).putInt((int) crc.getValue());
                return;
            }
            pos += 8 + len;
        }
    }
}
