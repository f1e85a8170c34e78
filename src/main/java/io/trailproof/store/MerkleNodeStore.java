package io.trailproof.store;

import io.trailproof.core.merkle.MerkleAppender;
import io.trailproof.core.merkle.MerkleNode;
import io.trailproof.core.merkle.MerkleTree;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.merkle.StreamingRoot;
import io.trailproof.core.merkle.SubtreeHashes;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Merkle tree's perfect-subtree hashes on disk (src/site/concepts.md#the-merkle-tree and src/site/storage.md): one append-only file per
 * level, {@code level-KK.hash}, holding 32 bytes per node in index order. The tree is derived from
 * the log, so any node the store cannot vouch for is dropped or recomputed on open.
 *
 * <p><b>Trust and recovery.</b> Only the leaves covered by the caller's last checkpoint are trusted;
 * the caller calls {@link #force()} before recording that checkpoint. {@link #open} cuts every level
 * back to what {@code trustedLeaves} implies and, if some level file is shorter (a lost write),
 * opens at the largest leaf count every level supports; the caller re-appends from {@link #size()}.
 * Every level above 0 is then recomputed from level 0 and compared; wrong nodes (a flipped byte, a
 * stale page) are rewritten from level 0 and each repaired level is described in {@link #repairs()}.
 * {@link #checkUpperLevels()} does the same on a running store. Level 0 itself is only as good as the
 * leaf hashes appended: comparing it with the log is the caller's job, with {@link #get},
 * {@link #recomputedRoot} and {@link #rewriteLeaves}.
 *
 * <p><b>Thread-safety.</b> Mutators ({@link #append}, {@link #truncate}, {@link #force},
 * {@link #rewriteLeaves}, {@link #close}, and the repair step of {@link #checkUpperLevels()}) are
 * serialised by this object's monitor; the service still has one appender. Readers ({@link #get},
 * {@link #root}, the proofs, {@link #size}) take no lock and may run concurrently with an append. An
 * append is atomic for readers: {@link #size()} grows only after the leaf and all its parents are
 * readable, so a reader that asks about sizes up to a {@link #size()} it has seen gets consistent
 * nodes. A repair replaces only wrong bytes, in memory and in the files, so a reader racing with it
 * gets the wrong node or the right one. {@link #truncate} is the exception: readers (and
 * {@link #checkUpperLevels()}) must not use sizes above the new size while or after it runs.
 *
 * <p><b>Durability.</b> Appended nodes are buffered in memory per level and written in chunks;
 * nothing is durable until {@link #force()} returns. Interrupts are harmless: mutators write and sync
 * through handles an interrupt cannot close, finish their work and leave the thread's interrupt
 * status set; readers retry on a fresh channel. After an {@link IOException} from a mutator the store
 * must be reopened.
 *
 * <p>Levels from {@value #RESIDENT_FROM_LEVEL} up are also held wholly in memory (8 bytes per leaf:
 * 8 MB at a million events), so a root or a proof reads at most {@value #RESIDENT_FROM_LEVEL}
 * nodes from the files and an export, which makes a proof per event, stays fast. After
 * {@link #openCheckingLater} they are loaded by {@link #checkAfterOpen()}, before any reader is let through.
 */
public final class MerkleNodeStore implements SubtreeHashes, Closeable {
    /** Levels at and above this one are kept wholly in memory as well as on disk. */
    public static final int RESIDENT_FROM_LEVEL = 3;
    /** Nodes buffered per level before they are written to the file. */
    static final int CHUNK_NODES = 1024;

    private static final int HASH = Rfc9162.HASH_LENGTH;
    // A tree of at most Long.MAX_VALUE leaves has levels 0..62.
    private static final int MAX_LEVELS = 63;

    private final Path dir;
    private final int chunkNodes;
    private final int residentFromLevel;
    // Slots are filled by the appender before the size covering them is published (volatile).
    private final MerkleLevel[] levels = new MerkleLevel[MAX_LEVELS];
    private volatile long size;
    // Leaves whose nodes are all in the level files (written, maybe not yet synced).
    private volatile long flushedSize;
    private volatile boolean closed;
    /**
     * The root of the last size asked for. A root at a size never changes while the nodes are right,
     * and clients ask for the current root far more often than the tree grows; a repair of any node
     * drops it, so a root computed from a wrong node is never served after the repair.
     */
    private volatile SizedRoot lastRoot;
    /** Counts repairs, so that a root computed while a repair ran is not kept. */
    private volatile long repairGeneration;

    private record SizedRoot(long size, long generation, byte[] root) {
    }

    /**
     * Level files created (each a change to the directory) and how many of them a directory sync
     * covered; guarded by this object's monitor.
     */
    private long directoryChanges;
    private long directorySynced;
    private volatile List<String> repairs = List.of();
    /** Done once the levels above 0 are checked after the open (see {@link #openCheckingLater}). */
    private final CompletableFuture<Void> checked = new CompletableFuture<>();

    private MerkleNodeStore(Path dir, int chunkNodes, int residentFromLevel) {
        this.dir = dir;
        this.chunkNodes = chunkNodes;
        this.residentFromLevel = residentFromLevel;
    }

    /**
     * Opens or creates the store in {@code dir} (the service passes {@code DIR/merkle}), trusting at
     * most the first {@code trustedLeaves} leaves. Nodes beyond are removed from the files, and the
     * levels above 0 are checked against level 0 and repaired (see {@link #repairs()}). The resulting
     * {@link #size()} may be smaller than {@code trustedLeaves} when files were short. Takes one
     * SHA-256 per stored leaf.
     */
    public static MerkleNodeStore open(Path dir, long trustedLeaves) throws IOException {
        return open(dir, trustedLeaves, CHUNK_NODES, RESIDENT_FROM_LEVEL, true);
    }

    /**
     * As {@link #open(Path, long)}, but the check of the levels above 0 (one SHA-256 per leaf) and the
     * load of the resident levels' memory copies (8 bytes per leaf) are left to
     * {@link #checkAfterOpen()}, which the caller runs on a thread of its own: the open itself reads
     * no node, only the files' sizes, so it takes the same time for any size of tree. Appends go on meanwhile; every reader ({@link #get},
     * {@link #nodes}, {@link #root}, the proofs) waits until the check and its repairs are done, so
     * no node the check would rewrite is served (see {@link #whenChecked()} for waiting without a thread).
     */
    public static MerkleNodeStore openCheckingLater(Path dir, long trustedLeaves) throws IOException {
        return open(dir, trustedLeaves, CHUNK_NODES, RESIDENT_FROM_LEVEL, false);
    }

    /** As {@link #openCheckingLater(Path, long)} with tunables (tests). */
    static MerkleNodeStore openCheckingLater(Path dir, long trustedLeaves, int chunkNodes, int residentFromLevel)
            throws IOException {
        return open(dir, trustedLeaves, chunkNodes, residentFromLevel, false);
    }

    /** As {@link #open(Path, long)} with tunables, so tests can exercise chunk and cache edges. */
    static MerkleNodeStore open(Path dir, long trustedLeaves, int chunkNodes, int residentFromLevel)
            throws IOException {
        return open(dir, trustedLeaves, chunkNodes, residentFromLevel, true);
    }

    private static MerkleNodeStore open(Path dir, long trustedLeaves, int chunkNodes, int residentFromLevel,
                                        boolean checkNow) throws IOException {
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
                AtomicFile.forceDirectory(parent);
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
                    store.levels[k] = store.openLevel(k, leaves >>> k, !checkNow);
                }
            }
            store.size = leaves;
            store.flushedSize = leaves;
            if (checkNow) {
                // Memory was just loaded from the files, so the file copies need no second look.
                store.repairs = List.copyOf(UpperLevelCheck.run(store.levels, leaves, 0, true));
                store.checked.complete(null);
            }
            store.force();
        } catch (IOException | RuntimeException e) {
            store.closeFiles();
            throw e;
        }
        return store;
    }

    /**
     * What {@link #open} (or {@link #checkAfterOpen()}) found wrong in the levels above 0 and rewrote
     * from level 0: one sentence per level file, naming it and the first wrong node index. Empty when
     * every node matched, and until a deferred check is done.
     */
    public List<String> repairs() {
        return repairs;
    }

    /**
     * The check {@link #openCheckingLater} deferred: every level above 0 recomputed from level 0 and
     * compared (as {@link #checkUpperLevels()}), wrong nodes rewritten and forced; then readers are let
     * through, also when the check failed (its exception is thrown here, for the caller to report).
     *
     * @return the repairs, as {@link #repairs()}
     */
    public List<String> checkAfterOpen() throws IOException {
        try {
            for (MerkleLevel level : levels) {
                if (level != null) {
                    level.loadResident(this);
                }
            }
            repairs = checkUpperLevels();
            return repairs;
        } finally {
            checked.complete(null);
        }
    }

    /** Completes once the levels above 0 are checked after the open; readers wait for it. */
    public CompletableFuture<Void> whenChecked() {
        return checked.copy();
    }

    /** True once {@link #close} ran. */
    public boolean isClosed() {
        return closed;
    }

    /** Whether the check after the open is done (always, for {@link #open}). */
    public boolean checked() {
        return checked.isDone();
    }

    /** Bytes of nodes held in memory over all levels (tests: what an open read into memory). */
    long heldBytes() {
        long sum = 0;
        for (MerkleLevel level : levels) {
            if (level != null) {
                sum += level.heldBytes();
            }
        }
        return sum;
    }

    /** Readers wait here for a deferred check; at once when it is done. */
    private void awaitChecked() {
        if (!checked.isDone()) {
            checked.join();
        }
    }

    /**
     * Recomputes every level above 0 from level 0 for the current size and compares it with the nodes
     * readers are served and with the files of the resident levels; rewrites any wrong node from
     * level 0 and makes the repair durable. The comparison takes no lock (appends go on); only when
     * something is wrong is it repeated, with the repair, under the mutator lock. For the periodic
     * verification: one SHA-256 per leaf.
     *
     * @return one sentence per repaired level file, naming it and the first wrong node index; empty
     *     when every node matched
     */
    public List<String> checkUpperLevels() throws IOException {
        ensureOpen();
        long flushed = flushedSize;
        long n = size;
        if (UpperLevelCheck.run(levels, n, flushed, false).isEmpty()) {
            return List.of();
        }
        synchronized (this) {
            ensureOpen();
            flushLevels();
            repairGeneration++;
            List<String> repaired = UpperLevelCheck.run(levels, size, size, true);
            repairGeneration++;
            force();
            return repaired;
        }
    }

    /**
     * MTH of the first {@code treeSize} leaves computed from level 0 alone, ignoring the stored upper
     * levels: for comparing with a root recorded elsewhere (a checkpoint, a timestamp). Reads level 0
     * in 1 MiB reads; one SHA-256 per leaf.
     */
    public byte[] recomputedRoot(long treeSize) {
        requireSize(treeSize);
        ensureOpen();
        StreamingRoot root = new StreamingRoot();
        for (long start = 0; start < treeSize; start += UpperLevelCheck.CHUNK_LEAVES) {
            int n = (int) Math.min(UpperLevelCheck.CHUNK_LEAVES, treeSize - start);
            byte[] chunk = levels[0].nodes(start, n);
            for (int i = 0; i < n; i++) {
                root.add(Arrays.copyOfRange(chunk, i * HASH, (i + 1) * HASH));
            }
        }
        return root.root();
    }

    /**
     * Replaces the leaf hashes at {@code [from, from + leafHashes.size())}, all below {@link #size()},
     * with those given (the caller recomputed them from the log), rewrites every upper node from
     * level 0 and forces. For repairing level 0 after the caller found it differing from the log.
     * O(size) work under the mutator lock.
     *
     * @return the upper-level repairs, as {@link #checkUpperLevels()} describes them
     */
    public synchronized List<String> rewriteLeaves(long from, List<byte[]> leafHashes) throws IOException {
        ensureOpen();
        if (from < 0 || from + leafHashes.size() > size) {
            throw new IllegalArgumentException("leaves " + from + " + " + leafHashes.size() + " are not in a tree of "
                    + size + " leaves");
        }
        byte[] hashes = new byte[leafHashes.size() * HASH];
        for (int i = 0; i < leafHashes.size(); i++) {
            if (!Rfc9162.isHash(leafHashes.get(i))) {
                throw new IllegalArgumentException("leaf hash " + (from + i) + " must be " + HASH + " bytes");
            }
            System.arraycopy(leafHashes.get(i), 0, hashes, i * HASH, HASH);
        }
        flushLevels();
        repairGeneration++;
        levels[0].rewrite(from, hashes, leafHashes.size());
        List<String> repaired = UpperLevelCheck.run(levels, size, size, true);
        repairGeneration++;
        force();
        return repaired;
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
        // Straight from the levels: an append never waits for a deferred check (which repairs what it
        // computes from a wrong node, since it recomputes every node up to the size it finds).
        List<MerkleNode> created = MerkleAppender.newNodes((level, index) -> levels[level].get(index), n, leafHash);
        for (MerkleNode node : created) {
            MerkleLevel level = levels[node.level()];
            if (level == null) {
                level = openLevel(node.level(), 0);
                levels[node.level()] = level;
            }
            if (level.count() != node.index()) {
                throw new IllegalStateException("level " + node.level() + " holds " + level.count()
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
        awaitChecked();
        return levels[level].get(index);
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
        awaitChecked();
        return levels[level].nodes(from, count);
    }

    /** MTH of the first {@code treeSize} leaves, for any size up to {@link #size()}. */
    public byte[] root(long treeSize) {
        requireSize(treeSize);
        awaitChecked();
        long generation = repairGeneration;
        SizedRoot last = lastRoot;
        if (last != null && last.size() == treeSize && last.generation() == generation) {
            return last.root().clone();
        }
        byte[] root = MerkleTree.root(this, treeSize);
        lastRoot = new SizedRoot(treeSize, generation, root.clone());
        return root;
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
     *
     * <p>Only the writing of the buffered nodes holds this object's monitor; the syncs run without
     * it, so that {@link #append} (the sequencer, which every write waits for) never waits for the
     * disk while a chain-head snapshot forces the tree. A caller that holds the monitor (a repair)
     * keeps appends out for the whole force, as before.
     */
    public void force() throws IOException {
        List<MerkleLevel> toSync = new ArrayList<>();
        List<Long> upTo = new ArrayList<>();
        long directoryChange;
        synchronized (this) {
            ensureOpen();
            flushLevels();
            for (MerkleLevel level : levels) {
                long changes = level == null ? -1 : level.unsynced();
                if (changes >= 0) {
                    toSync.add(level);
                    upTo.add(changes);
                }
            }
            directoryChange = directoryChanges > directorySynced ? directoryChanges : -1;
        }
        for (int i = 0; i < toSync.size(); i++) {
            toSync.get(i).sync(upTo.get(i));
        }
        if (directoryChange >= 0) {
            AtomicFile.forceDirectory(dir);
            synchronized (this) {
                directorySynced = Math.max(directorySynced, directoryChange);
            }
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
        flushedSize = Math.min(flushedSize, leaves);
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
            closeFiles();
        }
    }

    /** Writes every level's buffered nodes to its file; under the monitor. */
    private void flushLevels() throws IOException {
        for (MerkleLevel level : levels) {
            if (level != null) {
                level.flush();
            }
        }
        flushedSize = size;
    }

    private void closeFiles() throws IOException {
        IOException first = null;
        for (MerkleLevel level : levels) {
            if (level == null) {
                continue;
            }
            try {
                level.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private MerkleLevel openLevel(int k, long count) throws IOException {
        return openLevel(k, count, false);
    }

    private MerkleLevel openLevel(int k, long count, boolean deferLoad) throws IOException {
        Path file = dir.resolve(fileName(k));
        boolean created = !Files.exists(file);
        MerkleLevel level = MerkleLevel.open(file, count, k >= residentFromLevel, deferLoad, chunkNodes, () -> closed);
        if (created) {
            directoryChanges++;
            level.markUnforced();
        }
        return level;
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
}
