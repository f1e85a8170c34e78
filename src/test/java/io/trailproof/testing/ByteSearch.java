package io.trailproof.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/** Finding bytes in stored files, for tests that damage or inspect what is on disk. */
public final class ByteSearch {

    private ByteSearch() {
    }

    /** The first position of {@code needle} in {@code haystack}; an AssertionError when it is not there. */
    public static int indexOf(byte[] haystack, byte[] needle) {
        int at = find(haystack, needle);
        if (at < 0) {
            throw new AssertionError("not found");
        }
        return at;
    }

    /** The first position of {@code needle} in {@code haystack}, or -1. */
    public static int find(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /**
     * The files under {@code root} holding {@code marker}'s UTF-8 bytes, as paths relative to it (the
     * byte search of a data directory, src/site/erasure.md#physically-gone). A file or directory a
     * running server removed or replaced during the walk (a Lucene temporary file, a rewritten
     * segment) is skipped: its replacement is read if the walk meets it.
     */
    public static List<String> filesContaining(Path root, String marker) throws IOException {
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attributes) throws IOException {
                if (attributes.isRegularFile()) {
                    byte[] b;
                    try {
                        b = Files.readAllBytes(f);
                    } catch (NoSuchFileException gone) {
                        return FileVisitResult.CONTINUE;
                    }
                    if (find(b, needle) >= 0) {
                        out.add(root.relativize(f).toString());
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) throws IOException {
                if (e instanceof NoSuchFileException && !f.equals(root)) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        return out;
    }
}
