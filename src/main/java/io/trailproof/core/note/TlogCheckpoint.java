package io.trailproof.core.note;

import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.TlogRejection.Kind;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * The note text of a {@code c2sp.org/tlog-checkpoint} v1.0.0: the origin, the tree size in decimal
 * without leading zeros, the base64 root hash, then optional non-empty extension lines, each line
 * ending in a newline. This service writes no extension lines; it reads them so that a checkpoint
 * from another log parses.
 *
 * @param origin the log's identity (non-empty; for this service also a valid key name)
 * @param size the tree size
 * @param root the RFC 9162 root at {@code size}, 32 bytes
 * @param extensions the extension lines, without newlines
 */
public record TlogCheckpoint(String origin, long size, byte[] root, List<String> extensions) {

    public TlogCheckpoint {
        if (origin == null || origin.isEmpty() || origin.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("an origin is one non-empty line");
        }
        if (size < 0 || !Rfc9162.isHash(root)) {
            throw new IllegalArgumentException("a checkpoint has a size >= 0 and a 32-byte root");
        }
        root = root.clone();
        extensions = List.copyOf(extensions);
    }

    /** A checkpoint without extension lines, as this service signs. */
    public static TlogCheckpoint of(String origin, long size, byte[] root) {
        return new TlogCheckpoint(origin, size, root, List.of());
    }

    @Override
    public byte[] root() {
        return root.clone();
    }

    /** The note text, ending in a newline. */
    public String text() {
        StringBuilder b = new StringBuilder(origin).append('\n').append(size).append('\n')
                .append(Base64.getEncoder().encodeToString(root)).append('\n');
        extensions.forEach(e -> b.append(e).append('\n'));
        return b.toString();
    }

    /** True when this and {@code other} name the same size and root of the same origin. */
    public boolean sameTreeAs(TlogCheckpoint other) {
        return origin.equals(other.origin) && size == other.size && Arrays.equals(root, other.root);
    }

    /** Parses a note text; {@link Kind#MALFORMED_CHECKPOINT} when it is not a checkpoint body. */
    public static TlogCheckpoint parse(String text) throws TlogRejection {
        if (!text.endsWith("\n")) {
            throw malformed("the text ends in a newline", text);
        }
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        if (lines.length < 3 || Arrays.stream(lines).anyMatch(String::isEmpty)) {
            throw malformed("at least three non-empty lines: origin, size, root", text);
        }
        long size = parseDecimal(lines[1]);
        if (size < 0) {
            throw malformed("the size is a decimal without leading zeros", lines[1]);
        }
        byte[] root = SignedNote.decodeBase64(lines[2]);
        if (!Rfc9162.isHash(root)) {
            throw malformed("the root is base64 of 32 bytes", lines[2]);
        }
        return new TlogCheckpoint(lines[0], size, root, List.of(lines).subList(3, lines.length));
    }

    /**
     * An ASCII decimal without leading zeros (unless it is 0) that fits a long, or -1. The C2SP
     * formats all write sizes and indexes this way.
     */
    public static long parseDecimal(String s) {
        if (s.isEmpty() || s.length() > 19 || (s.length() > 1 && s.charAt(0) == '0')
                || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlogCheckpoint c && sameTreeAs(c) && c.extensions.equals(extensions);
    }

    @Override
    public int hashCode() {
        return origin.hashCode() * 31 + Long.hashCode(size);
    }

    @Override
    public String toString() {
        return text().replace('\n', ' ').strip();
    }

    private static TlogRejection malformed(String why, String evidence) {
        return new TlogRejection(Kind.MALFORMED_CHECKPOINT, "malformed checkpoint: " + why, evidence);
    }
}
