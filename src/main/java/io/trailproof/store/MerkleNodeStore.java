package io.trailproof.store;

import io.trailproof.core.merkle.MerkleAppender;
import io.trailproof.core.merkle.MerkleNode;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.SubtreeHashes;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * The Merkle tree's perfect-subtree hashes on disk (CONTRACT 3 and 8): one append-only file per
 * level, {@code level-KK.hash}, holding 32 bytes per node in index order. The tree is derived from
 * the log, so any node the store cannot vouch for is dropped on open and re-appended by the caller.
 *
 * <p><b>Trust and recovery.</b> Only the leaves covered by the caller's last checkpoint are trusted;
 * the caller calls {@link #force()} before recording that checkpoint. {@link #open} cuts every level
 * back to what {@code trustedLeaves} implies and, if some level file is shorter (a lost write),
 * opens at the largest leaf count every level supports; the caller re-appends from {@link #size()}.
 *
 * <p><b>Thread-safety.</b> Mutators ({@link #append}, {@link #truncate}, {@link #force},
 * {@link #close}) are serialised by this object's monitor; the service still has one appender. Readers
 * ({@link #get}, {@link #root}, the proofs, {@link #size}) take no lock and may run concurrently with
 * an append. An append is atomic for readers: {@link #size()} grows only after the leaf and all its
 * parents are readable, so a reader that asks about sizes up to a {@link #size()} it has seen gets
 * consistent nodes. {@link #truncate} is the exception: readers must not use sizes above the new
 * size while or after it runs.
 *
 * <p><b>Durability.</b> Appended nodes are buffered in memory per level and written in chunks;
 * nothing is durable until {@link #force()} returns. Do not interrupt a thread inside a mutator: an
 * interrupt closes the channel, and the store must then be reopened, as after any
 * {@link IOException} from a mutator. Interrupts of reader threads are tolerated.
 *
 * <p>Levels from {@value #RESIDENT_FROM_LEVEL} up are also held wholly in memory (8 bytes per leaf:
 * 8 MB at a million events), so a root or a proof reads at most {@value #RESIDENT_FROM_LEVEL}
 * nodes from the files and an export, which makes a proof per event, stays fast.
 */
public final class MerkleNodeStore implements SubtreeHashes, Closeable {
    /** Levels at and above this one are kept wholly in memory as well as on disk. */
    public static final int RESIDENT_FROM_LEVEL = 3;
    /** Nodes buffered per level before they are written to the file. */
    static final int CHUNK_NODES = 1024;

    private static final int HASH = Rfc9162.HASH_LENGTH;
    // A tree of at most Long.MAX_VALUE leaves has levels 0..62.
    private static final int MAX_LEVELS = 63;
    private static final int READ_ATTEMPTS = 8;

    private final Path dir;
    private final int chunkNodes;
    private final int residentFromLevel;
    // Slots are filled by the appender before the size covering them is published (volatile).
    private final Level[] levels = new Level[MAX_LEVELS];
    private volatile long size;
    private volatile boolean closed;
    private boolean directoryDirty;

    private MerkleNodeStore(Path dir, int chunkNodes, int residentFromLevel) {
        this.dir = dir;
        this.chunkNodes = chunkNodes;
        this.residentFromLevel = residentFromLevel;
    }

    /**
     * Opens or creates the store in {@code dir} (the service passes {@code DIR/merkle}), trusting at
     * most the first {@code trustedLeaves} leaves. Nodes beyond are removed from the files. The
     * resulting {@link #size()} may be smaller than {@code trustedLeaves} when files were short.
     */
    public static MerkleNodeStore open(Path dir, long trustedLeaves) throws IOException {
        return open(dir, trustedLeaves, CHUNK_NODES, RESIDENT_FROM_LEVEL);
    }

    /** As {@link #open(Path, long)} with tunables, so tests can exercise chunk and cache edges. */
    static MerkleNodeStore open(Path dir, long trustedLeaves, int chunkNodes, int residentFromLevel)
            throws IOException {
        if (trustedLeaves < 0) {
            throw new IllegalArgumentException("trusted leaves must be >= 0, was " + trustedLeaves);
        }
        if (chunkNodes < 1 || residentFromLevel < 0) {
            throw new IllegalArgumentException("bad tunables");
        }
        MerkleNodeStore store = new MerkleNodeStore(dir, chunkNodes, residentFromLevel);
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            Path parent = dir.toAbsolutePath().getParent();
            if (parent != null) {
                forceDirectory(parent);
            }
        }
        long[] stored = new long[MAX_LEVELS];
        for (int k = 0; k < MAX_LEVELS; k++) {
            Path file = dir.resolve(fileName(k));
            stored[k] = Files.exists(file) ? Files.size(file) / HASH : -1;
        }
        long leaves = trustedLeaves;
        for (int k = 0; k < MAX_LEVELS && (trustedLeaves >>> k) > 0; k++) {
            long have = Math.max(stored[k], 0);
            if (have < (trustedLeaves >>> k)) {
                // Level k supports at most the leaves whose count at level k is still <= have.
                leaves = Math.min(leaves, ((have + 1) << k) - 1);
            }
        }
        try {
            for (int k = 0; k < MAX_LEVELS; k++) {
                if (stored[k] >= 0 || (leaves >>> k) > 0) {
                    store.levels[k] = store.openLevel(k, leaves >>> k);
                }
            }
            store.size = leaves;
            store.force();
        } catch (IOException | RuntimeException e) {
            store.closeChannels();
            throw e;
        }
        return store;
    }

    /** Number of leaves in the tree. */
    public long size() {
        return size;
    }

    /**
     * Appends one RFC 9162 leaf hash (32 bytes) and the parents it completes. Visible to readers
     * on return; durable only after {@link #force()}.
     */
    public synchronized void append(byte[] leafHash) throws IOException {
        ensureOpen();
        long n = size;
        List<MerkleNode> created = MerkleAppender.newNodes(this, n, leafHash);
        for (MerkleNode node : created) {
            Level level = levels[node.level()];
            if (level == null) {
                level = openLevel(node.level(), 0);
                levels[node.level()] = level;
            }
            if (level.count != node.index()) {
                throw new IllegalStateException("level " + node.level() + " holds " + level.count
                        + " nodes, expected " + node.index());
            }
            level.add(node.hash());
        }
        size = n + 1;
    }

    /**
     * The hash of the perfect subtree at {@code level}, {@code index}; a fresh array.
     *
     * @throws IllegalArgumentException if that node is not in the tree of {@link #size()} leaves
     * @throws UncheckedIOException if the file cannot be read
     */
    @Override
    public byte[] get(int level, long index) {
        long n = size;
        if (level < 0 || level >= MAX_LEVELS || index < 0 || index >= (n >>> level)) {
            throw new IllegalArgumentException(
                    "no node at level " + level + ", index " + index + " in a tree of " + n + " leaves");
        }
        ensureOpen();
        Level l = levels[level];
        Buffer b = l.buffer;
        if (index >= b.base) {
            int from = Math.toIntExact((index - b.base) * HASH);
            return Arrays.copyOfRange(b.data, from, from + HASH);
        }
        return l.read(index);
    }

    /**
     * {@code count} consecutive nodes of a level, concatenated (32 bytes each), read in one go where
     * they are in the file: for callers that walk many neighbouring nodes, such as verification.
     */
    public byte[] nodes(int level, long from, int count) {
        long n = size;
        if (level < 0 || level >= MAX_LEVELS || from < 0 || count < 0 || from + count > (n >>> level)) {
            throw new IllegalArgumentException("no nodes at level " + level + ", " + from + " + " + count
                    + " in a tree of " + n + " leaves");
        }
        ensureOpen();
        Level l = levels[level];
        if (from + count <= l.buffer.base) {
            return l.read(from, count);
        }
        byte[] out = new byte[count * HASH];
        for (int i = 0; i < count; i++) {
            System.arraycopy(get(level, from + i), 0, out, i * HASH, HASH);
        }
        return out;
    }

    /** MTH of the first {@code treeSize} leaves, for any size up to {@link #size()}. */
    public byte[] root(long treeSize) {
        requireSize(treeSize);
        return MerkleTree.root(this, treeSize);
    }

    /** PATH(leafIndex, D[treeSize]) for any size up to {@link #size()}. */
    public List<byte[]> inclusionProof(long leafIndex, long treeSize) {
        requireSize(treeSize);
        return MerkleTree.inclusionProof(this, leafIndex, treeSize);
    }

    /** PROOF(m, D[n]) for any {@code n} up to {@link #size()}. */
    public List<byte[]> consistencyProof(long m, long n) {
        requireSize(n);
        return MerkleTree.consistencyProof(this, m, n);
    }

    /**
     * Writes every buffered node and forces all level files and, after a file was created, the
     * directory. Everything appended before the call is durable on return.
     */
    public synchronized void force() throws IOException {
        ensureOpen();
        for (Level level : levels) {
            if (level != null) {
                level.flush();
            }
        }
        for (Level level : levels) {
            if (level != null && level.unforced) {
                level.channel.force(true);
                level.unforced = false;
            }
        }
        if (directoryDirty) {
            forceDirectory(dir);
            directoryDirty = false;
        }
    }

    /**
     * Cuts the tree back to its first {@code leaves} leaves, for rebuilding. Not durable until
     * {@link #force()}; readers must not use larger sizes during or after the call.
     */
    public synchronized void truncate(long leaves) throws IOException {
        ensureOpen();
        if (leaves < 0 || leaves > size) {
            throw new IllegalArgumentException("cannot truncate a tree of " + size + " leaves to " + leaves);
        }
        size = leaves;
        for (int k = 0; k < MAX_LEVELS; k++) {
            if (levels[k] != null) {
                levels[k].truncate(leaves >>> k);
            }
        }
    }

    /** Forces (see {@link #force()}) and closes the files. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            force();
        } finally {
            closed = true;
            closeChannels();
        }
    }

    private void closeChannels() throws IOException {
        IOException first = null;
        for (Level level : levels) {
            if (level == null) {
                continue;
            }
            for (FileChannel ch : new FileChannel[] {level.channel, level.reader}) {
                try {
                    ch.close();
                } catch (IOException e) {
                    if (first == null) {
                        first = e;
                    }
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private Level openLevel(int k, long count) throws IOException {
        Path file = dir.resolve(fileName(k));
        boolean created = !Files.exists(file);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        try {
            Level level = new Level(file, channel, FileChannel.open(file, StandardOpenOption.READ),
                    k >= residentFromLevel);
            if (channel.size() != count * HASH) {
                channel.truncate(count * HASH);
                level.unforced = true;
            }
            level.load(count);
            if (created) {
                directoryDirty = true;
                level.unforced = true;
            }
            return level;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private void requireSize(long treeSize) {
        long n = size;
        if (treeSize < 0 || treeSize > n) {
            throw new IllegalArgumentException("tree size " + treeSize + " is not in [0, " + n + "]");
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("Merkle node store " + dir + " is closed");
        }
    }

    static String fileName(int level) {
        return String.format("level-%02d.hash", level);
    }

    private static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /**
     * Nodes {@code [base, base + data.length / 32)} of a level, as far as they exist. Never
     * modified below the published count once published, so readers may hold on to a stale one.
     */
    private record Buffer(long base, byte[] data) {}

    /** One level: its file, and the nodes not yet written there (or, if resident, all nodes). */
    private final class Level {
        final Path file;
        final FileChannel channel;
        final boolean resident;
        // Readers use their own channel: an interrupted reader closes it, and it is reopened.
        volatile FileChannel reader;
        volatile Buffer buffer;
        long count;
        long written;
        boolean unforced;

        Level(Path file, FileChannel channel, FileChannel reader, boolean resident) {
            this.file = file;
            this.channel = channel;
            this.reader = reader;
            this.resident = resident;
        }

        void load(long nodes) throws IOException {
            count = nodes;
            written = nodes;
            if (resident) {
                byte[] data = new byte[capacity(nodes)];
                ByteBuffer dst = ByteBuffer.wrap(data, 0, Math.toIntExact(nodes * HASH));
                long pos = 0;
                while (dst.hasRemaining()) {
                    int r = channel.read(dst, pos);
                    if (r < 0) {
                        throw new IOException("unexpected end of " + file);
                    }
                    pos += r;
                }
                buffer = new Buffer(0, data);
            } else {
                buffer = new Buffer(nodes, new byte[chunkNodes * HASH]);
            }
        }

        void add(byte[] hash) throws IOException {
            Buffer b = buffer;
            if (resident) {
                long end = (count + 1) * HASH;
                if (end > b.data.length) {
                    byte[] grown = Arrays.copyOf(b.data, capacity(count + 1));
                    b = new Buffer(0, grown);
                    buffer = b;
                }
                System.arraycopy(hash, 0, b.data, Math.toIntExact(count * HASH), HASH);
                count++;
                if (count - written >= chunkNodes) {
                    flush();
                }
            } else {
                if (count - b.base == chunkNodes) {
                    flush();
                    b = new Buffer(count, new byte[chunkNodes * HASH]);
                    buffer = b;
                }
                System.arraycopy(hash, 0, b.data, Math.toIntExact((count - b.base) * HASH), HASH);
                count++;
            }
        }

        /** Writes nodes {@code [written, count)} from the buffer to the file. */
        void flush() throws IOException {
            if (count == written) {
                return;
            }
            Buffer b = buffer;
            ByteBuffer src = ByteBuffer.wrap(b.data, Math.toIntExact((written - b.base) * HASH),
                    Math.toIntExact((count - written) * HASH));
            long pos = written * HASH;
            while (src.hasRemaining()) {
                pos += channel.write(src, pos);
            }
            written = count;
            unforced = true;
        }

        void truncate(long nodes) throws IOException {
            if (nodes >= count) {
                return;
            }
            if (nodes < written) {
                channel.truncate(nodes * HASH);
                written = nodes;
                unforced = true;
            }
            if (!resident && nodes < buffer.base) {
                buffer = new Buffer(nodes, new byte[chunkNodes * HASH]);
            }
            count = nodes;
        }

        byte[] read(long index) {
            return read(index, 1);
        }

        /** {@code count} consecutive nodes from the file, in one read. */
        byte[] read(long index, int count) {
            byte[] out = new byte[count * HASH];
            boolean interrupted = false;
            try {
                for (int attempt = 1; ; attempt++) {
                    FileChannel ch = reader;
                    try {
                        ByteBuffer dst = ByteBuffer.wrap(out);
                        long pos = index * HASH;
                        while (dst.hasRemaining()) {
                            int r = ch.read(dst, pos);
                            if (r < 0) {
                                throw new IOException("node " + (pos / HASH) + " is missing from " + file);
                            }
                            pos += r;
                        }
                        return out;
                    } catch (ClosedChannelException e) {
                        if (e instanceof ClosedByInterruptException) {
                            // Clear the flag so the retry can run; it is restored below.
                            interrupted |= Thread.interrupted();
                        }
                        if (closed) {
                            throw new IllegalStateException("Merkle node store " + dir + " is closed", e);
                        }
                        if (attempt >= READ_ATTEMPTS) {
                            throw new UncheckedIOException(e);
                        }
                        reopenReader(ch);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private synchronized void reopenReader(FileChannel broken) {
            if (reader != broken || closed) {
                return;
            }
            try {
                reader = FileChannel.open(file, StandardOpenOption.READ);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private int capacity(long nodes) {
            long want = Math.max((long) chunkNodes, nodes + nodes / 2) * HASH;
            return Math.toIntExact(Math.min(want, Integer.MAX_VALUE - 8));
        }
    }
}
