package io.trailproof.backup;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.IntactEvent;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.StreamingRoot;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.store.AtomicFile;
import io.trailproof.store.CorruptLogException;
import io.trailproof.store.SegmentLog;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * Restores a backup into a data directory, offline (src/site/operations.md): no server is involved, the
 * checks use the service's own log reader and Merkle code.
 *
 * <p><b>All or nothing.</b> The archive is unpacked into a staging directory beside the target
 * ({@code .NAME.restoring-...}); only when every check passed is the staging directory renamed
 * to the target. A refused restore deletes the staging directory, so the target stays absent or
 * empty, whatever the failure.
 *
 * <p><b>What is checked</b>: the archive is a strict ustar of regular files ({@link TarReader});
 * its first entry is a valid {@code MANIFEST.json}; every other entry is a file a backup holds
 * ({@link BackupLayout#allowed}: no path can leave the target), is named by the manifest exactly
 * once, has the manifest's size and SHA-256; every file the manifest names is present; the log
 * opens as a log (every frame's CRC, commit frames, segment names) with nothing cut and exactly
 * {@code tree_size} events, every event still hashes to its stored hash and sits at its own log
 * index, and the RFC 9162 root of their hashes is the manifest's {@code root}; every timestamp
 * record is readable and stamps a tree size no larger than {@code tree_size}.
 */
public final class Restore {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int COPY_BYTES = 256 << 10;

    private Restore() {
    }

    /**
     * Restores {@code archive} into {@code target}, which must be absent or an empty directory.
     *
     * @param progress told how many archive bytes were read so far, now and then
     * @return the manifest of what was restored
     * @throws RestoreRefused when the archive or the target is not acceptable (the target is then
     *     left absent or empty)
     */
    public static BackupManifest run(InputStream archive, Path target, LongConsumer progress)
            throws RestoreRefused, IOException {
        Path dir = target.toAbsolutePath().normalize();
        checkTarget(dir);
        Path parent = dir.getParent();
        if (parent == null) {
            throw RestoreRefused.target("cannot restore into the file system root; name a directory");
        }
        Files.createDirectories(parent);
        Path staging = Files.createTempDirectory(parent, "." + dir.getFileName() + ".restoring-");
        try {
            BackupManifest manifest = unpack(archive, staging, progress);
            checkLog(staging, manifest);
            checkTimestamps(staging, manifest);
            forceTree(staging);
            move(staging, dir);
            return manifest;
        } finally {
            deleteTree(staging);
        }
    }

    /**
     * Reads a backup as {@link #run} does and checks its manifest, entries, sizes and digests,
     * writing nothing: what {@code trailproof backup} runs over the archive as it arrives, so a
     * damaged transfer is found when the backup is taken, not when it is needed. (The log's root
     * is checked by a restore.)
     */
    public static BackupManifest check(InputStream archive, LongConsumer progress) throws RestoreRefused, IOException {
        return unpack(archive, null, progress);
    }

    private static void checkTarget(Path dir) throws RestoreRefused, IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw RestoreRefused.target(dir + " exists and is not a directory: restore only into an absent or empty "
                    + "directory (nothing was changed)");
        }
        try (Stream<Path> s = Files.list(dir)) {
            if (s.findAny().isPresent()) {
                throw RestoreRefused.target(dir + " is not empty: restore only into an absent or empty directory, so "
                        + "that a restore never mixes with or overwrites a data directory (nothing was changed)");
            }
        }
    }

    // ------------------------------------------------------------------ unpacking

    private static BackupManifest unpack(InputStream archive, Path staging, LongConsumer progress)
            throws RestoreRefused, IOException {
        TarReader tar = new TarReader(archive);
        try {
            TarReader.Entry first = tar.next();
            if (first == null || !first.name().equals(BackupManifest.NAME)) {
                throw new RestoreRefused("this is not a trailproof backup: its first entry is "
                        + (first == null ? "missing" : TarReader.printable(first.name())) + ", not " + BackupManifest.NAME);
            }
            if (first.size() > BackupManifest.MAX_BYTES) {
                throw new RestoreRefused(BackupManifest.NAME + " is " + first.size() + " bytes, more than any backup's");
            }
            byte[] json = new byte[(int) first.size()];
            readFully(tar, json);
            BackupManifest manifest;
            try {
                manifest = BackupManifest.parse(json);
            } catch (IllegalArgumentException e) {
                throw new RestoreRefused("the backup's manifest is unusable: " + e.getMessage());
            }
            Map<String, BackupManifest.FileEntry> expected = new HashMap<>();
            manifest.files().forEach(f -> expected.put(f.name(), f));
            TarReader.Entry e;
            while ((e = tar.next()) != null) {
                String name = e.name();
                if (!BackupLayout.allowed(name)) {
                    throw new RestoreRefused("the backup holds an unexpected entry " + TarReader.printable(name)
                            + " (a backup holds only log and timestamp segments, the signing key, the signed "
                            + "checkpoint and witness alarms); refusing it");
                }
                BackupManifest.FileEntry want = expected.remove(name);
                if (want == null) {
                    throw new RestoreRefused("the backup holds " + name + " twice, or a file its manifest does not name");
                }
                if (e.size() != want.size()) {
                    throw new RestoreRefused(name + " is " + e.size() + " bytes in the archive but " + want.size()
                            + " in the manifest: the backup was altered or damaged");
                }
                Path file = staging == null ? null : staging.resolve(name).normalize();
                if (file != null && !file.startsWith(staging)) {   // allowed() already excludes this; a second lock on the door
                    throw new RestoreRefused("entry " + TarReader.printable(name) + " points outside the directory");
                }
                String digest = write(tar, file, e.size(), () -> progress.accept(tar.offset()));
                if (!digest.equals(want.sha256())) {
                    throw new RestoreRefused(name + " does not match its SHA-256 in the manifest: the backup was "
                            + "altered or damaged (nothing was restored)");
                }
                if (file != null && BackupLayout.mode(name) == 0600) {
                    ownerOnly(file);
                }
                progress.accept(tar.offset());
            }
            if (!expected.isEmpty()) {
                throw new RestoreRefused("the backup lacks " + expected.keySet().stream().sorted().findFirst().get()
                        + (expected.size() > 1 ? " and " + (expected.size() - 1) + " more file(s)" : "")
                        + " that its manifest names: it is incomplete");
            }
            return manifest;
        } catch (TarReader.TarFormatException x) {
            throw new RestoreRefused("the backup is not a readable archive: " + x.getMessage()
                    + " (nothing was restored)", x);
        }
    }

    private static void readFully(TarReader tar, byte[] into) throws IOException {
        int off = 0;
        while (off < into.length) {
            int n = tar.read(into, off, into.length - off);
            if (n < 0) {
                throw new TarReader.TarFormatException("an entry ended early");
            }
            off += n;
        }
    }

    /** Copies the entry's content to {@code file} (forced), or only digests it when {@code file} is null. */
    private static String write(TarReader tar, Path file, long size, Runnable tick) throws IOException {
        MessageDigest sha = OnlineBackup.sha256();
        byte[] buf = new byte[COPY_BYTES];
        long done = 0;
        FileChannel out = null;
        if (file != null) {
            Files.createDirectories(file.getParent());
            out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }
        try {
            int n;
            while ((n = tar.read(buf, 0, buf.length)) > 0) {
                OnlineBackup.update(sha, buf, 0, n);
                if (out != null) {
                    ByteBuffer bb = ByteBuffer.wrap(buf, 0, n);
                    while (bb.hasRemaining()) {
                        out.write(bb);
                    }
                }
                done += n;
                tick.run();
            }
            if (done != size) {
                throw new TarReader.TarFormatException("an entry ended early");
            }
            if (out != null) {
                out.force(true);
            }
        } finally {
            if (out != null) {
                out.close();
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    // ------------------------------------------------------------------ checks

    /** The log opens with nothing cut, holds tree_size events, each intact at its index, and gives root. */
    private static void checkLog(Path staging, BackupManifest manifest) throws RestoreRefused, IOException {
        Path dir = staging.resolve(BackupLayout.LOG_DIR);
        try (SegmentLog log = open(dir, "log")) {
            if (log.size() != manifest.treeSize()) {
                throw new RestoreRefused("the log in the backup holds " + log.size() + " events but the manifest says "
                        + manifest.treeSize() + ": the backup was altered");
            }
            StreamingRoot root = new StreamingRoot();
            String[] problem = {null};
            ErasuresSeen erasures = new ErasuresSeen();
            log.scan(0, log.size(), (index, payload) -> {
                byte[] leaf = leaf(index, payload, problem, erasures);
                if (leaf != null) {
                    root.add(leaf);
                }
            });
            if (problem[0] == null) {
                problem[0] = erasures.unnamed();
            }
            if (problem[0] != null) {
                throw new RestoreRefused(problem[0] + ": the backup was altered (nothing was restored)");
            }
            if (!MessageDigest.isEqual(root.root(), manifest.rootBytes())) {
                throw new RestoreRefused("the log in the backup gives root " + HexFormat.of().formatHex(root.root())
                        + " at tree size " + manifest.treeSize() + ", not the manifest's " + manifest.root()
                        + ": the backup was altered (nothing was restored)");
            }
        }
    }

    /**
     * The event's leaf, or null with {@code problem} set. An erased event's hash cannot be
     * recomputed: its stored hash is taken (the root still binds it) and {@code erasures} checks at
     * the end that an erasure record names it (src/site/erasure.md#verification).
     */
    private static byte[] leaf(long index, byte[] payload, String[] problem, ErasuresSeen erasures) {
        if (problem[0] != null) {
            return null;
        }
        Optional<IntactEvent> intact = IntactEvent.check(payload);
        long claimed;
        byte[] hash;
        if (intact.isPresent()) {
            claimed = intact.get().logIndex();
            hash = intact.get().hashBytes();
            if (ErasuresSeen.mayBeErasureRecord(payload)) {
                try {
                    erasures.event(StoredEvent.parse(payload));
                } catch (StoredEventFormatException e) {
                    problem[0] = "the entry at log index " + index + " is not a readable stored event (" + e.getMessage() + ")";
                    return null;
                }
            }
        } else {
            try {
                StoredEvent event = StoredEvent.parse(payload);
                erasures.event(event);
                claimed = event.logIndex();
                if (event.erased()) {
                    erasures.erased(index, event.erasureId());
                    hash = event.hashBytes();
                } else {
                    hash = event.recomputeHash();
                }
                if (!event.erased() && !MessageDigest.isEqual(hash, event.hashBytes())) {
                    problem[0] = "the event at log index " + index + " (" + event.id() + ") no longer hashes to its "
                            + "stored hash";
                    return null;
                }
            } catch (StoredEventFormatException e) {
                problem[0] = "the entry at log index " + index + " is not a readable stored event (" + e.getMessage() + ")";
                return null;
            }
        }
        if (claimed != index) {
            problem[0] = "the event at log index " + index + " claims log index " + claimed;
            return null;
        }
        return Rfc9162.leafHash(hash);
    }

    private static void checkTimestamps(Path staging, BackupManifest manifest) throws RestoreRefused, IOException {
        Path dir = staging.resolve(BackupLayout.TIMESTAMPS_DIR);
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (SegmentLog log = open(dir, "timestamp records")) {
            String[] problem = {null};
            log.scan(0, log.size(), (index, payload) -> {
                if (problem[0] != null) {
                    return;
                }
                try {
                    TimestampRecord r = TimestampRecord.fromJson(JSON.readTree(payload));
                    if (r.treeSize() > manifest.treeSize()) {
                        problem[0] = "timestamp record " + index + " stamps tree size " + r.treeSize()
                                + ", beyond the backup's " + manifest.treeSize();
                    }
                } catch (IOException | IllegalArgumentException e) {
                    problem[0] = "timestamp record " + index + " is unreadable (" + e.getMessage() + ")";
                }
            });
            if (problem[0] != null) {
                throw new RestoreRefused(problem[0] + ": the backup was altered (nothing was restored)");
            }
        }
    }

    /** Opens a restored segment log; anything recovery would cut or refuse makes the backup refused. */
    private static SegmentLog open(Path dir, String what) throws RestoreRefused, IOException {
        SegmentLog log;
        try {
            log = SegmentLog.open(dir);
        } catch (CorruptLogException e) {
            throw new RestoreRefused("the " + what + " in the backup do not open: " + e.getMessage()
                    + " (nothing was restored)", e);
        }
        if (log.recoveredTailBytes() > 0) {
            log.close();
            throw new RestoreRefused("the " + what + " in the backup end in " + log.recoveredTailBytes()
                    + " bytes of an uncommitted group: a backup ends at a committed point, so it was altered");
        }
        return log;
    }

    // ------------------------------------------------------------------ files

    private static void ownerOnly(Path file) throws IOException {
        if (Files.getFileAttributeView(file, PosixFileAttributeView.class) != null) {
            Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }

    private static void forceTree(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                AtomicFile.forceDirectory(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /** Renames the checked staging directory to the target (replacing it when it is an empty directory). */
    private static void move(Path staging, Path dir) throws RestoreRefused, IOException {
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            throw new RestoreRefused(dir + " was written to while the restore ran; restore again into an absent or "
                    + "empty directory");
        }
        Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
        AtomicFile.forceDirectory(dir.getParent());
    }

    private static void deleteTree(Path root) throws IOException {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Files.delete(f);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (NoSuchFileException e) {
            // renamed into place: nothing left to delete
        }
    }
}
