package io.trailproof.store;

import io.trailproof.core.merkle.Rfc9162;
import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * One level of {@link MerkleNodeStore}: its file {@code level-KK.hash} (32 bytes per node, in index
 * order) and the nodes held in memory, either the ones not yet written to the file or, for a
 * resident level, all of them.
 *
 * <p>Mutators ({@link #add}, {@link #flush}, {@link #truncate}, {@link #rewrite}) and {@link #unsynced}
 * are called under the store's monitor; {@link #sync} is not, so that a force never holds up appends.
 * They write through a {@link RandomAccessFile}, whose reads, writes and {@code sync} cannot be
 * aborted by an interrupt, so an interrupted appender neither fails nor breaks the level for others,
 * and its interrupt status is left for it to handle. Readers read the written nodes through the
 * level's memory maps ({@link LevelMaps}) where they are mapped, else through their own
 * {@link FileChannel}, reopened when an interrupt of a reader thread closes it.
 */
final class MerkleLevel implements Closeable {
    static final int HASH = Rfc9162.HASH_LENGTH;
    private static final int READ_ATTEMPTS = 8;

    /**
     * Nodes {@code [base, base + data.length / 32)} of a level, as far as they exist. Never modified
     * below the published count once published, except by a repair, which only replaces bytes that
     * were wrong; so readers may hold on to a stale one.
     */
    record Buffer(long base, byte[] data) {}

    final Path file;
    /** Whether the level holds all its nodes in memory; turns true once when a deferred load is done. */
    volatile boolean resident;
    // Guarded by the store's monitor: a memory copy is wanted but not loaded yet (see loadResident).
    private boolean residentDeferred;
    // Guarded by the store's monitor: the lowest count a truncation cut to since a deferred load began.
    private long truncatedTo = Long.MAX_VALUE;
    private final int chunkNodes;
    private final BooleanSupplier storeClosed;
    private final RandomAccessFile writer;
    private volatile FileChannel reader;
    /** The written part of the file, mapped for readers ({@link #readWritten}). */
    private final LevelMaps maps;
    private volatile Buffer buffer;
    // Guarded by the store's monitor.
    private long count;
    private long written;
    /** Changes made to the file (writes, length changes); guarded by the store's monitor. */
    private long changes;
    /** The changes the last completed {@code sync} covered; guarded by {@code syncs}. */
    private long synced;
    private final Object syncs = new Object();

    private MerkleLevel(Path file, boolean resident, int chunkNodes, BooleanSupplier storeClosed,
            RandomAccessFile writer, FileChannel reader) {
        this.file = file;
        this.resident = resident;
        this.chunkNodes = chunkNodes;
        this.storeClosed = storeClosed;
        this.writer = writer;
        this.reader = reader;
        this.maps = new LevelMaps(file);
    }

    /**
     * Opens (creating if needed) the level file and cuts or extends it to exactly {@code nodes} nodes;
     * not durable until {@link #sync}.
     */
    static MerkleLevel open(Path file, long nodes, boolean resident, int chunkNodes, BooleanSupplier storeClosed)
            throws IOException {
        return open(file, nodes, resident, false, chunkNodes, storeClosed);
    }

    /**
     * As above; with {@code deferLoad}, a resident level starts as a non-resident one (nothing read
     * from its file) until {@link #loadResident} loads its memory copy.
     */
    static MerkleLevel open(Path file, long nodes, boolean resident, boolean deferLoad, int chunkNodes,
                            BooleanSupplier storeClosed) throws IOException {
        RandomAccessFile writer = new RandomAccessFile(file.toFile(), "rw");
        try {
            MerkleLevel level = new MerkleLevel(file, resident && !deferLoad, chunkNodes, storeClosed, writer,
                    FileChannel.open(file, StandardOpenOption.READ));
            level.residentDeferred = resident && deferLoad;
            try {
                if (writer.length() != nodes * HASH) {
                    writer.setLength(nodes * HASH);
                    level.changes++;
                }
                level.load(nodes);
                return level;
            } catch (IOException | RuntimeException e) {
                level.reader.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            writer.close();
            throw e;
        }
    }

    private void load(long nodes) throws IOException {
        count = nodes;
        written = nodes;
        if (resident) {
            byte[] data = new byte[capacity(nodes)];
            writer.seek(0);
            writer.readFully(data, 0, Math.toIntExact(nodes * HASH));
            buffer = new Buffer(0, data);
        } else {
            buffer = new Buffer(nodes, new byte[chunkNodes * HASH]);
        }
    }

    /**
     * Loads the memory copy a level opened with {@code deferLoad} left out, and from then on holds
     * every node in memory as a resident level does; nothing when there is none to load. The nodes
     * already in the file are read without {@code monitor} (the store's), so appends go on meanwhile;
     * under it, only what was appended or truncated during that read is read again, and the level
     * switches. The store calls it just before its check after the open, and lets readers through only
     * after that check: a repair that rewrote nodes while they were being read (the periodic check may
     * run beside it) can leave the old bytes in the copy, and that check, which compares the copy with
     * nodes recomputed from level 0, rewrites them before any reader sees them.
     */
    void loadResident(Object monitor) throws IOException {
        long prefix;
        synchronized (monitor) {
            if (!residentDeferred) {
                return;
            }
            flush();
            prefix = written;
            truncatedTo = Long.MAX_VALUE;
        }
        byte[] data = new byte[capacity(prefix)];
        readInto(data, 0, prefix);
        synchronized (monitor) {
            flush();
            long valid = Math.min(prefix, Math.min(truncatedTo, count));
            if (data.length < count * HASH) {
                data = Arrays.copyOf(data, capacity(count));
            }
            readInto(data, valid, count - valid);
            buffer = new Buffer(0, data);
            residentDeferred = false;
            resident = true;
        }
    }

    private void readInto(byte[] data, long from, long n) throws IOException {
        for (long at = from; at < from + n; ) {
            int step = (int) Math.min(n - (at - from), 32_768);
            System.arraycopy(readFile(at, step), 0, data, Math.toIntExact(at * HASH), step * HASH);
            at += step;
        }
    }

    /** Bytes of nodes held in memory (a resident level's copy, or the unwritten chunk). */
    long heldBytes() {
        return buffer.data.length;
    }

    /** Nodes in the level, including those not yet written to the file. Under the store's monitor. */
    long count() {
        return count;
    }

    /** Marks the level as needing a force, e.g. because its file was just created. */
    void markUnforced() {
        changes++;
    }

    /** Appends one node (32 bytes); written to the file in chunks. */
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

    /** Writes nodes {@code [written, count)} from memory to the file (not forced). */
    void flush() throws IOException {
        if (count == written) {
            return;
        }
        Buffer b = buffer;
        writer.seek(written * HASH);
        writer.write(b.data, Math.toIntExact((written - b.base) * HASH), Math.toIntExact((count - written) * HASH));
        written = count;
        changes++;
    }

    /**
     * The changes a {@link #sync} must cover for everything written to the file so far to be durable,
     * or -1 when a completed sync covers them already. Under the store's monitor, after {@link #flush()}.
     */
    long unsynced() {
        synchronized (syncs) {
            return changes > synced ? changes : -1;
        }
    }

    /**
     * Makes the changes counted up to {@code upTo} (from {@link #unsynced()}) durable. Called without
     * the store's monitor, so that appends go on while the disk syncs: a {@code sync} covers every
     * write that returned before it began, and the writes after it are counted as changes beyond
     * {@code upTo}. Concurrent calls are harmless; each returns once a sync that began after its
     * changes were written has completed.
     */
    void sync(long upTo) throws IOException {
        synchronized (syncs) {
            if (synced >= upTo) {
                return;
            }
        }
        writer.getFD().sync();
        synchronized (syncs) {
            synced = Math.max(synced, upTo);
        }
    }

    /** Drops the nodes from {@code nodes} on; not durable until {@link #sync}. */
    void truncate(long nodes) throws IOException {
        if (nodes >= count) {
            return;
        }
        truncatedTo = Math.min(truncatedTo, nodes);
        if (nodes < written) {
            maps.clear();   // nothing maps bytes the file is about to lose
            writer.setLength(nodes * HASH);
            written = nodes;
            changes++;
        }
        if (!resident && nodes < buffer.base) {
            buffer = new Buffer(nodes, new byte[chunkNodes * HASH]);
        }
        count = nodes;
    }

    /**
     * Replaces nodes {@code [from, from + n)} (all below {@link #count()}) with {@code hashes} in the
     * file and in memory, for a repair; not durable until {@link #sync}. A reader racing with it
     * may see the old bytes of a node, never bytes other than the old or the new ones.
     */
    void rewrite(long from, byte[] hashes, int n) throws IOException {
        if (from < 0 || n < 0 || from + n > count) {
            throw new IllegalArgumentException("cannot rewrite nodes " + from + " + " + n + " of " + count + " in " + file);
        }
        long inFile = Math.min(from + n, written);
        if (inFile > from) {
            writer.seek(from * HASH);
            writer.write(hashes, 0, Math.toIntExact((inFile - from) * HASH));
            changes++;
        }
        Buffer b = buffer;
        long lo = Math.max(from, b.base);
        long hi = Math.min(from + n, resident ? count : b.base + chunkNodes);
        if (hi > lo) {
            System.arraycopy(hashes, Math.toIntExact((lo - from) * HASH), b.data, Math.toIntExact((lo - b.base) * HASH),
                    Math.toIntExact((hi - lo) * HASH));
        }
    }

    /**
     * Node {@code index}, which the caller knows to be below a count it saw published (the store's
     * volatile size is read before this level's buffer); a fresh array.
     */
    byte[] get(long index) {
        Buffer b = buffer;
        if (index >= b.base) {
            int from = Math.toIntExact((index - b.base) * HASH);
            return Arrays.copyOfRange(b.data, from, from + HASH);
        }
        return readWritten(index, 1, b.base);
    }

    /**
     * Nodes {@code [from, from + n)}, concatenated, as readers see them: from memory where they are
     * held, from the file otherwise. Same precondition as {@link #get}.
     */
    byte[] nodes(long from, int n) {
        Buffer b = buffer;
        if (from + n <= b.base) {
            return readWritten(from, n, b.base);
        }
        byte[] out = new byte[n * HASH];
        long split = Math.max(from, b.base);
        if (split > from) {
            System.arraycopy(readWritten(from, Math.toIntExact(split - from), b.base), 0, out, 0,
                    Math.toIntExact((split - from) * HASH));
        }
        System.arraycopy(b.data, Math.toIntExact((split - b.base) * HASH), out, Math.toIntExact((split - from) * HASH),
                Math.toIntExact((from + n - split) * HASH));
        return out;
    }

    /**
     * Nodes {@code [from, from + n)} of the first {@code writtenNodes}, which the file holds: through
     * its map ({@link LevelMaps}) where it is mapped, else in one read.
     */
    private byte[] readWritten(long from, int n, long writtenNodes) {
        byte[] out = new byte[n * HASH];
        try {
            if (maps.copy(from * HASH, out, out.length, writtenNodes * HASH)) {
                return out;
            }
        } catch (IOException e) {
            if (storeClosed.getAsBoolean()) {
                throw new IllegalStateException("Merkle node store is closed (" + file + ")", e);
            }
            throw new UncheckedIOException(e);
        }
        return readFile(from, n);
    }

    /** Nodes {@code [from, from + n)} as the file holds them, in one read; all must have been written. */
    byte[] readFile(long from, int n) {
        byte[] out = new byte[n * HASH];
        boolean interrupted = false;
        try {
            for (int attempt = 1; ; attempt++) {
                FileChannel ch = reader;
                try {
                    ByteBuffer dst = ByteBuffer.wrap(out);
                    long pos = from * HASH;
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
                    if (storeClosed.getAsBoolean()) {
                        throw new IllegalStateException("Merkle node store is closed (" + file + ")", e);
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
        if (reader != broken || storeClosed.getAsBoolean()) {
            return;
        }
        try {
            reader = FileChannel.open(file, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes the file handles (without flushing). */
    @Override
    public void close() throws IOException {
        maps.clear();
        try {
            writer.close();
        } finally {
            reader.close();
        }
    }

    private int capacity(long nodes) {
        long want = Math.max((long) chunkNodes, nodes + nodes / 2) * HASH;
        return Math.toIntExact(Math.min(want, Integer.MAX_VALUE - 8));
    }
}
