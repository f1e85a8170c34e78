package io.trailproof.store;

import java.io.IOException;
import java.nio.file.Path;

/** Stored bytes fail their integrity check; names the file and byte offset so a person can look. */
public class CorruptLogException extends IOException {
    private final Path file;
    private final long offset;

    public CorruptLogException(Path file, long offset, String what) {
        super(what + " in " + file + " at offset " + offset);
        this.file = file;
        this.offset = offset;
    }

    public Path file() { return file; }

    public long offset() { return offset; }
}
