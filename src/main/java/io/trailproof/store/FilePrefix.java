package io.trailproof.store;

import java.nio.file.Path;

/**
 * The first {@code bytes} bytes of an append-only file: what a consistent copy of that file takes
 * at one moment. The bytes below {@code bytes} never change afterwards (the file only grows), so
 * they may be read at leisure, without any lock, while the file keeps growing.
 *
 * @param file  the file
 * @param name  its name relative to the directory it lives in (e.g. {@code 00000000000000000000.seg})
 * @param bytes how many of its bytes belong to the copy
 */
public record FilePrefix(Path file, String name, long bytes) {
    public FilePrefix {
        if (bytes < 0) {
            throw new IllegalArgumentException("negative prefix length " + bytes);
        }
    }
}
