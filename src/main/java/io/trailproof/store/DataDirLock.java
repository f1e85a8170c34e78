package io.trailproof.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exclusive ownership of a data directory (src/site/storage.md: one process owns a data directory).
 *
 * <p>Holds an OS file lock on {@code dataDir/lock} for as long as it is open; the lock file
 * contains the holder's PID, which a second process puts into its error message. The OS releases
 * the lock when the process dies (also on kill -9), so a stale lock file never blocks a restart.
 *
 * <p>A second acquire inside the same JVM fails too, without opening the lock file again: on POSIX
 * systems closing <em>any</em> descriptor of a file drops all of the process's locks on it, so
 * probing the file a second time could silently release the first owner's lock.
 */
public final class DataDirLock implements Closeable {
    private static final Set<Path> HELD_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path dir;
    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    private DataDirLock(Path dir, Path key, FileChannel channel, FileLock lock) {
        this.dir = dir;
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Creates {@code dataDir} if needed and locks it.
     *
     * @throws DataDirInUseException if another process or another owner in this JVM holds it
     */
    public static DataDirLock acquire(Path dataDir) throws IOException {
        Files.createDirectories(dataDir);
        Path key = dataDir.toRealPath();
        if (!HELD_IN_THIS_JVM.add(key)) {
            throw new DataDirInUseException(dataDir, Long.toString(ProcessHandle.current().pid()));
        }
        FileChannel ch = null;
        try {
            Path lockFile = key.resolve("lock");
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                String holder = readHolder(ch);
                throw new DataDirInUseException(dataDir, holder);
            }
            ch.truncate(0);
            ByteBuffer pid = ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII));
            long pos = 0;
            while (pid.hasRemaining()) {
                pos += ch.write(pid, pos);
            }
            ch.force(true);
            return new DataDirLock(dataDir, key, ch, lock);
        } catch (IOException | RuntimeException | Error e) {
            HELD_IN_THIS_JVM.remove(key);
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    private static String readHolder(FileChannel ch) {
        try {
            ByteBuffer b = ByteBuffer.allocate(32);
            ch.read(b, 0);
            String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
            return s.matches("\\d{1,19}") ? s : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The locked data directory. */
    public Path directory() {
        return dir;
    }

    /** Releases the lock. The lock file stays (it is harmless once unlocked). */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            lock.release();
        } finally {
            try {
                channel.close();
            } finally {
                HELD_IN_THIS_JVM.remove(key);
            }
        }
    }
}
