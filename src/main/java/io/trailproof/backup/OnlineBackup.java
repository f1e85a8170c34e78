package io.trailproof.backup;

import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LogFileHolds;
import io.trailproof.store.FilePrefix;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Takes consistent backups of a running service (src/site/operations.md) without pausing it.
 *
 * <p><b>Consistency without a lock on appends.</b> Every file a backup copies only grows, and what
 * was durable never changes while the backup {@link #holdFiles holds} the files (only an erasure
 * rewrites them, and it waits), so a backup is a list of file <em>prefixes</em> fixed at one moment and
 * read afterwards at leisure. The order in which they are fixed makes them agree with each other:
 * first the small state files (the signed checkpoint, witness alarms, the signing key), then the
 * timestamp records durable now, and last the readable tree size {@code N} of the log. A checkpoint
 * or a timestamp is only ever made over a size the log had already reached, so every one in the
 * backup names a size of at most {@code N}, and a service restored from it never finds a signed
 * checkpoint or a timestamp ahead of its own tree. Ingestion is never blocked: appends continue
 * while the prefixes are read.
 *
 * <p><b>Manifest first.</b> The manifest carries each file's SHA-256 but comes first in the tar, so
 * {@link #capture} reads the prefixes once to digest them, and {@link Snapshot#writeTo} reads them
 * again to send them (the second read is mostly served from the page cache). Nothing is buffered
 * beyond one read buffer: memory does not grow with the log.
 */
public final class OnlineBackup {

    /** Where the timestamp records are, fixed at the moment asked. */
    @FunctionalInterface
    public interface FileSource {
        List<FilePrefix> files() throws IOException;
    }

    /** Small state files are read whole; one larger than this is not ours and is refused. */
    private static final int MAX_STATE_FILE_BYTES = 1 << 20;
    private static final int READ_BYTES = 256 << 10;

    private final Path dataDir;
    private final Ledger ledger;
    private final FileSource timestamps;
    private final Clock clock;
    private final Map<Path, Digested> digested = new ConcurrentHashMap<>();

    public OnlineBackup(Path dataDir, Ledger ledger, FileSource timestamps, Clock clock) {
        this.dataDir = dataDir;
        this.ledger = ledger;
        this.timestamps = timestamps;
        this.clock = clock;
    }

    /**
     * Keeps the log's files unchanged until closed (an erasure rewrites them, and waits for it;
     * src/site/erasure.md#crash-safety-of-an-erasure): to be held from {@link #capture} until the
     * snapshot is written. Waits for a running erasure's rewrite.
     */
    public LogFileHolds.Hold holdFiles() throws InterruptedIOException {
        return ledger.logFiles().hold();
    }

    /**
     * Fixes a consistent set of file prefixes (see the class comment) and digests them; the caller
     * holds {@link #holdFiles} from before this call until the snapshot is written. Takes as
     * long as reading the log once; ingestion continues meanwhile.
     *
     * @throws UnsupportedOperationException when the log or the timestamp records are not local files
     */
    public Snapshot capture() throws IOException {
        Instant at = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        List<Snapshot.Item> items = new ArrayList<>();
        // 1. state files, whole and in memory (a few KB): before the tree size, see the class comment
        for (String name : stateFiles()) {
            byte[] content = readSmall(dataDir.resolve(name));
            if (content != null) {
                items.add(new Snapshot.Item(name, null, content, sha256(content)));
            }
        }
        // 2. the timestamp records durable now
        List<FilePrefix> stamps = timestamps.files();
        // 3. the log at its readable size
        long size = ledger.size();
        byte[] root = ledger.root(size);
        List<FilePrefix> log = ledger.logFiles().committed(size);
        List<Snapshot.Item> onDisk = new ArrayList<>();
        for (FilePrefix p : log) {
            onDisk.add(digest(BackupLayout.LOG_DIR + "/" + p.name(), p));
        }
        for (FilePrefix p : stamps) {
            onDisk.add(digest(BackupLayout.TIMESTAMPS_DIR + "/" + p.name(), p));
        }
        onDisk.addAll(items);
        List<BackupManifest.FileEntry> entries = onDisk.stream()
                .map(i -> new BackupManifest.FileEntry(i.name(), i.size(), i.sha256())).toList();
        BackupManifest manifest = new BackupManifest(at, size, HexFormat.of().formatHex(root), entries,
                ledger.replicaOffsetAt(size).orElse(null));
        return new Snapshot(manifest, onDisk);
    }

    private List<String> stateFiles() throws IOException {
        List<String> names = new ArrayList<>(List.of(BackupLayout.SIGNED_CHECKPOINT, BackupLayout.SIGNING_KEY));
        Path alarms = dataDir.resolve(BackupLayout.WITNESS_ALARMS);
        if (Files.isDirectory(alarms)) {
            try (Stream<Path> files = Files.list(alarms)) {
                files.map(f -> BackupLayout.WITNESS_ALARMS + "/" + f.getFileName())
                        .filter(BackupLayout::allowed).sorted().forEach(names::add);
            }
        }
        return names;
    }

    private static byte[] readSmall(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        if (Files.size(file) > MAX_STATE_FILE_BYTES) {
            throw new IOException(file + " is larger than any state file the service writes; not backing it up");
        }
        return Files.readAllBytes(file);
    }

    /**
     * The prefix's SHA-256. The digest state at the end of the last prefix digested of each file is
     * kept, so the next backup digests only what was appended since (the bytes before never change):
     * a backup's first pass costs the new part of the log, not the whole of it. One small state per
     * segment file.
     */
    private Snapshot.Item digest(String name, FilePrefix p) throws IOException {
        Digested known = digested.get(p.file());
        MessageDigest sha;
        long from;
        if (known != null && known.bytes() <= p.bytes()) {
            sha = copy(known.state());
            from = known.bytes();
        } else {
            sha = sha256();
            from = 0;
        }
        MessageDigest running = sha;
        copyRange(p.file(), from, p.bytes(), (buf, len) -> update(running, buf, 0, len));
        digested.put(p.file(), new Digested(p.bytes(), copy(sha)));
        return new Snapshot.Item(name, p, null, HexFormat.of().formatHex(sha.digest()));
    }

    private record Digested(long bytes, MessageDigest state) {
    }

    private static MessageDigest copy(MessageDigest d) {
        try {
            return (MessageDigest) d.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("SHA-256 of this JDK cannot be cloned", e);
        }
    }

    @FunctionalInterface
    interface Chunks {
        void accept(byte[] buf, int len) throws IOException;
    }

    /** Reads bytes {@code [from, to)} of the file, in order, into {@code chunks}. */
    static void copyRange(Path file, long from, long to, Chunks chunks) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            copyRange(ch, from, to, chunks);
        }
    }

    static void copyRange(FileChannel ch, long from, long to, Chunks chunks) throws IOException {
        byte[] buf = new byte[(int) Math.min(READ_BYTES, Math.max(1, to - from))];
        ByteBuffer bb = ByteBuffer.wrap(buf);
        long pos = from;
        while (pos < to) {
            bb.clear().limit((int) Math.min(buf.length, to - pos));
            int n = ch.read(bb, pos);
            if (n < 0) {
                throw new IOException("a file is shorter than the " + to + " bytes the backup fixed: the log was "
                        + "changed under the running service");
            }
            chunks.accept(buf, n);
            pos += n;
        }
    }

    /** Largest piece handed to {@link MessageDigest#update} at once, see {@link #update}. */
    private static final int DIGEST_PIECE = 64 << 10;

    /**
     * {@code sha.update(buf, off, len)} in pieces of at most 64 KB. Same digest; the reason is the JIT:
     * with many calls it compiles the digest's multi-block intrinsic (SHA-NI over a run of blocks),
     * while with few large ones it compiles only the loop around the one-block intrinsic, measured
     * about 10% more CPU per byte (and a fresh process, such as the backup client, warms up slower).
     */
    static void update(MessageDigest sha, byte[] buf, int off, int len) {
        for (int at = off, end = off + len; at < end; at += DIGEST_PIECE) {
            sha.update(buf, at, Math.min(DIGEST_PIECE, end - at));
        }
    }

    static String sha256(byte[] content) {
        return HexFormat.of().formatHex(sha256().digest(content));
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
