package io.trailproof.testing;

/** Finding bytes in stored files, for tests that damage or inspect what is on disk. */
public final class ByteSearch {

    private ByteSearch() {
    }

    /** The first position of {@code needle} in {@code haystack}; an AssertionError when it is not there. */
    public static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
