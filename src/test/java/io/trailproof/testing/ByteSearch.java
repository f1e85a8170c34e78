package io.trailproof.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

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
     * byte search of a data directory, src/site/erasure.md#physically-gone). A file a running server
     * replaced during the walk is skipped: its replacement is read if the walk meets it.
     */
    public static List<String> filesContaining(Path root, String marker) throws IOException {
        byte[] needle = marker.getBytes(StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                byte[] b;
                try {
                    b = Files.readAllBytes(f);
                } catch (NoSuchFileException gone) {
                    continue;
                }
                if (find(b, needle) >= 0) {
                    out.add(root.relativize(f).toString());
                }
            }
        }
        return out;
    }
}
