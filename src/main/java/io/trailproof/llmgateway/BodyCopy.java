package io.trailproof.llmgateway;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;

/**
 * The gateway's copy of an answer as it passes through, kept for recording: the bytes up to
 * {@link #MAX_KEPT}; past that only their count and SHA-256 (the answer itself still passes through
 * whole). Used by one thread at a time.
 */
final class BodyCopy {

    /** The largest answer kept for recording. */
    static final int MAX_KEPT = 32 << 20;
    /** The largest answer read after undoing its content encoding. */
    private static final int MAX_DECODED = 64 << 20;

    private ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private MessageDigest digest;
    private long size;

    void add(byte[] bytes, int offset, int length) {
        size += length;
        if (kept != null && kept.size() + length <= MAX_KEPT) {
            kept.write(bytes, offset, length);
            return;
        }
        if (digest == null) {
            digest = sha256();
            digest.update(kept.toByteArray());
            kept = null;
        }
        digest.update(bytes, offset, length);
    }

    long size() {
        return size;
    }

    /** Bytes held for the recorder's backlog. */
    int heldBytes() {
        return kept == null ? 0 : kept.size();
    }

    /** The whole answer, or null when it was larger than {@link #MAX_KEPT}. */
    byte[] bytes() {
        return kept == null ? null : kept.toByteArray();
    }

    /** The SHA-256 of the whole answer, when it was too large to keep. */
    String sha256Hex() {
        return digest == null ? null : HexFormat.of().formatHex(digest.digest());
    }

    /**
     * {@code body} with its {@code Content-Encoding} undone ({@code gzip}, {@code x-gzip},
     * {@code deflate}, {@code identity}); an encoding the gateway cannot undo is an {@link IOException}.
     */
    static byte[] decode(byte[] body, String contentEncoding) throws IOException {
        if (contentEncoding == null || contentEncoding.isBlank()) {
            return body;
        }
        byte[] result = body;
        String[] codings = contentEncoding.split(",");
        for (int i = codings.length - 1; i >= 0; i--) { // the last applied is undone first
            String coding = codings[i].strip().toLowerCase(Locale.ROOT);
            result = switch (coding) {
                case "", "identity" -> result;
                case "gzip", "x-gzip" -> readAll(new GZIPInputStream(new ByteArrayInputStream(result)));
                case "deflate" -> inflate(result);
                default -> throw new IOException("the answer's content encoding " + coding + " cannot be read");
            };
        }
        return result;
    }

    /** HTTP's {@code deflate} is zlib-wrapped; some servers send raw deflate, which is read too. */
    private static byte[] inflate(byte[] body) throws IOException {
        try {
            return readAll(new InflaterInputStream(new ByteArrayInputStream(body), new Inflater(false)));
        } catch (IOException zlibFailed) {
            return readAll(new InflaterInputStream(new ByteArrayInputStream(body), new Inflater(true)));
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            byte[] out = in.readNBytes(MAX_DECODED + 1);
            if (out.length > MAX_DECODED) {
                throw new IOException("the answer is larger than " + (MAX_DECODED >> 20) + " MiB once decoded");
            }
            return out;
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
