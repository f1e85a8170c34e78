package io.trailproof.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/** Crash-safe whole-file replacement and directory forcing (src/site/storage.md: renames are followed by a directory force). */
public final class AtomicFile {
    private static final boolean WINDOWS =
            System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");

    // Runs the directory syncs of interrupted callers; its threads are never interrupted.
    private static final ExecutorService DIRECTORY_SYNCS = Executors.newCachedThreadPool(task -> {
        Thread t = new Thread(task, "directory-sync");
        t.setDaemon(true);
        return t;
    });

    private AtomicFile() {}

    /**
     * Replaces {@code target} with {@code content}: writes a temporary file in the same directory,
     * forces it, renames it over {@code target} with {@code ATOMIC_MOVE} and forces the directory.
     *
     * <p>After a normal return the new content is durable. A crash at any point leaves either the
     * old file (or no file, if there was none) or the complete new file, never a mix of the two; a
     * crash may leave a stray {@code .<name>.*.tmp} file behind, which readers must ignore.
     *
     * @throws AtomicMoveNotSupportedException if the file system cannot rename atomically; the
     *     target is then left untouched
     */
    public static void write(Path target, byte[] content) throws IOException {
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + abs.getFileName() + "."
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
        boolean moved = false;
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(content);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            Files.move(tmp, abs, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            moved = true;
            forceDirectory(dir);
        } finally {
            if (!moved) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /**
     * Forces a directory's entries (file creations, renames, deletions) to disk. On Windows, where a
     * directory cannot be opened as a channel, this is a no-op (NTFS journals the metadata itself).
     *
     * <p>Interrupts are harmless: only a channel can sync a directory and an interrupt of the calling
     * thread closes it, so an interrupted caller hands the sync to a thread nobody interrupts and waits
     * for it; the call then returns normally and the caller keeps its interrupt status. The sync is
     * durable on return either way.
     */
    public static void forceDirectory(Path dir) throws IOException {
        if (WINDOWS) {
            return;
        }
        if (!Thread.currentThread().isInterrupted()) {
            try {
                forceOnce(dir);
                return;
            } catch (ClosedByInterruptException e) {
                // Interrupted during the sync: done again below, away from the interrupts.
            }
        }
        forceAwayFromInterrupts(dir);
    }

    private static void forceOnce(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private static void forceAwayFromInterrupts(Path dir) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            Future<?> sync = DIRECTORY_SYNCS.submit(() -> {
                forceOnce(dir);
                return null;
            });
            while (true) {
                try {
                    sync.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException("directory sync of " + dir + " failed", e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
