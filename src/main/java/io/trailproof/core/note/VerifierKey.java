package io.trailproof.core.note;

import io.trailproof.core.note.TlogRejection.Kind;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The verifier-key text form of signed-note ({@code <name>+<8 hex key id>+base64(type || key)}),
 * the form Go's {@code note.NewVerifier} reads, for the two types this service knows: Ed25519 note
 * signatures ({@link SignedNote#TYPE_ED25519}) and Ed25519 cosignatures v1
 * ({@link TlogCosignature#TYPE_ED25519_V1}).
 *
 * <p>A key whose id is not the recommended hash of its name, type and key is refused, as Go does:
 * a vkey copied with a typo fails when it is configured, not at the first verification.
 */
public final class VerifierKey {

    private VerifierKey() {}

    /** Parses a vkey; {@link Kind#MALFORMED_KEY} for anything else, or for an unknown type. */
    public static NoteVerifier parse(String vkey) throws TlogRejection {
        String[] parts = vkey == null ? new String[0] : vkey.split("\\+", 3);
        if (parts.length != 3 || !SignedNote.isValidName(parts[0]) || !isKeyIdHex(parts[1])) {
            throw malformed("a verifier key is <name>+<8 hex digits>+<base64 key>", vkey);
        }
        byte[] key = SignedNote.decodeBase64(parts[2]);
        if (key == null || key.length == 0) {
            throw malformed("the key is not standard base64", vkey);
        }
        int id = Integer.parseUnsignedInt(parts[1], 16);
        if (id != SignedNote.keyId(parts[0], key[0], Arrays.copyOfRange(key, 1, key.length))) {
            throw malformed("the key id does not match the name and key", vkey);
        }
        if (key.length != 1 + Ed25519.KEY_LENGTH) {
            throw malformed("an Ed25519 key is 32 bytes", vkey);
        }
        byte[] publicKey = Arrays.copyOfRange(key, 1, key.length);
        return switch (key[0]) {
            case SignedNote.TYPE_ED25519 -> new Ed25519NoteVerifier(parts[0], publicKey);
            case TlogCosignature.TYPE_ED25519_V1 -> new CosignatureVerifier(parts[0], publicKey);
            default -> throw malformed("unknown signature type 0x" + HexFormat.of().toHexDigits(key[0]), vkey);
        };
    }

    /** The vkey text of {@code publicKey} under {@code name} for signature {@code type}. */
    public static String format(String name, byte type, byte[] publicKey) {
        byte[] key = new byte[1 + publicKey.length];
        key[0] = type;
        System.arraycopy(publicKey, 0, key, 1, publicKey.length);
        return name + "+" + keyIdHex(SignedNote.keyId(name, type, publicKey)) + "+"
                + Base64.getEncoder().encodeToString(key);
    }

    /** A key id as the 8 lowercase hex digits of the text forms. */
    public static String keyIdHex(int keyId) {
        return HexFormat.of().toHexDigits(keyId);
    }

    // Go reads the id with strconv.ParseUint(s, 16, 32) after checking its length is 8.
    static boolean isKeyIdHex(String s) {
        return s.length() == 8 && s.toLowerCase(Locale.ROOT).chars()
                .allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    private static TlogRejection malformed(String why, String key) {
        return new TlogRejection(Kind.MALFORMED_KEY, "malformed verifier key: " + why, key);
    }
}
