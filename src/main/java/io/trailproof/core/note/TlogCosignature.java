package io.trailproof.core.note;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The home of {@code c2sp.org/tlog-cosignature}'s Ed25519 (v1) constants and message: a witness's
 * statement that, at a time, the checkpoint is the largest consistent tree it has seen of the log.
 *
 * <p>The signature is {@code u64 timestamp || Ed25519 signature} over the message
 * {@code "cosignature/v1\ntime <timestamp>\n" || checkpoint text}.
 */
public final class TlogCosignature {
    /** Signature type of timestamped Ed25519 witness cosignatures. */
    public static final byte TYPE_ED25519_V1 = 0x04;
    /** The first line of the signed message, for domain separation. */
    public static final String HEADER = "cosignature/v1";
    /** Length of a v1 cosignature after the key id: 8-byte timestamp and 64-byte Ed25519 signature. */
    public static final int SIGNATURE_LENGTH = Long.BYTES + Ed25519.SIGNATURE_LENGTH;

    private TlogCosignature() {}

    /** The message a witness signs for {@code checkpointText} at {@code timestamp} (POSIX seconds). */
    public static byte[] message(long timestamp, String checkpointText) {
        return (HEADER + "\ntime " + Long.toUnsignedString(timestamp) + "\n" + checkpointText)
                .getBytes(StandardCharsets.UTF_8);
    }

    /** The cosignature of {@code checkpointText} by the witness key {@code seed} named {@code name}. */
    public static NoteSignature sign(String name, byte[] seed, long timestamp, String checkpointText) {
        if (timestamp < 0) {
            throw new IllegalArgumentException("a cosignature timestamp is at most 2^63 - 1");
        }
        byte[] sig = Ed25519.sign(seed, message(timestamp, checkpointText));
        byte[] all = ByteBuffer.allocate(SIGNATURE_LENGTH).putLong(timestamp).put(sig).array();
        int keyId = SignedNote.keyId(name, TYPE_ED25519_V1, Ed25519.publicKey(seed));
        return new NoteSignature(name, keyId, all);
    }

    /** The timestamp of a v1 cosignature, or empty when it is not one (wrong length, above 2^63 - 1). */
    public static OptionalLong timestamp(byte[] signature) {
        if (signature == null || signature.length != SIGNATURE_LENGTH) {
            return OptionalLong.empty();
        }
        long t = ByteBuffer.wrap(signature).getLong();
        return t < 0 ? OptionalLong.empty() : OptionalLong.of(t);
    }

    static byte[] ed25519Part(byte[] signature) {
        return Arrays.copyOfRange(signature, Long.BYTES, signature.length);
    }
}
