package io.trailproof.core.note;

import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * An Ed25519 note-signing key: a name and a 32-byte seed. Its text form is Go's
 * {@code x/mod/sumdb/note} private key, {@code PRIVATE+KEY+<name>+<8 hex key id>+base64(0x01 || seed)}.
 *
 * <p>The seed is a secret: {@link #toString()} never shows it, and only {@link #privateKeyText()}
 * (for writing the key file) does.
 */
public final class NoteSigner {
    /** Starts the private-key text form. */
    public static final String PRIVATE_KEY_PREFIX = "PRIVATE+KEY+";

    private final String name;
    private final byte[] seed;
    private final byte[] publicKey;
    private final int keyId;

    private NoteSigner(String name, byte[] seed) {
        this.name = name;
        this.seed = seed.clone();
        this.publicKey = Ed25519.publicKey(seed);
        this.keyId = SignedNote.keyId(name, SignedNote.TYPE_ED25519, publicKey);
    }

    /** A signer for {@code name} with {@code seed} (32 bytes, from a secure random source). */
    public static NoteSigner of(String name, byte[] seed) {
        if (!SignedNote.isValidName(name)) {
            throw new IllegalArgumentException("a key name is non-empty, without spaces or '+': " + name);
        }
        return new NoteSigner(name, seed);
    }

    /** Parses the private-key text form; {@link Kind#MALFORMED_KEY} when it is anything else. */
    public static NoteSigner parse(String text) throws TlogRejection {
        // Never quote the text: it holds the secret.
        if (text == null || !text.startsWith(PRIVATE_KEY_PREFIX)) {
            throw malformed("a private key starts with " + PRIVATE_KEY_PREFIX);
        }
        String[] parts = text.substring(PRIVATE_KEY_PREFIX.length()).split("\\+", 3);
        if (parts.length != 3 || !SignedNote.isValidName(parts[0]) || !VerifierKey.isKeyIdHex(parts[1])) {
            throw malformed("a private key is PRIVATE+KEY+<name>+<8 hex digits>+<base64 key>");
        }
        byte[] key = SignedNote.decodeBase64(parts[2]);
        if (key == null || key.length != 1 + Ed25519.KEY_LENGTH || key[0] != SignedNote.TYPE_ED25519) {
            throw malformed("the key is not base64 of 0x01 and a 32-byte Ed25519 seed");
        }
        NoteSigner signer = new NoteSigner(parts[0], Arrays.copyOfRange(key, 1, key.length));
        Arrays.fill(key, (byte) 0);
        if (signer.keyId != Integer.parseUnsignedInt(parts[1], 16)) {
            throw malformed("the key id does not match the name and key");
        }
        return signer;
    }

    public String name() {
        return name;
    }

    public int keyId() {
        return keyId;
    }

    /** The verifier for this key's signatures. */
    public Ed25519NoteVerifier verifier() {
        return new Ed25519NoteVerifier(name, publicKey);
    }

    /** The verifier-key text form of this key's public half. */
    public String vkey() {
        return verifier().vkey();
    }

    /** The private-key text form (holds the secret seed). */
    public String privateKeyText() {
        byte[] key = new byte[1 + seed.length];
        key[0] = SignedNote.TYPE_ED25519;
        System.arraycopy(seed, 0, key, 1, seed.length);
        return PRIVATE_KEY_PREFIX + name + "+" + VerifierKey.keyIdHex(keyId) + "+"
                + Base64.getEncoder().encodeToString(key);
    }

    /** This key's signature line for {@code text} (a note text ending in a newline). */
    public NoteSignature sign(String text) {
        return new NoteSignature(name, keyId, Ed25519.sign(seed, text.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * Signs {@code note}: this key's signature first, then the note's other signatures, without any
     * earlier signature by this same key (as Go's {@code note.Sign} replaces it).
     */
    public SignedNote sign(SignedNote note) {
        List<NoteSignature> sigs = new ArrayList<>();
        sigs.add(sign(note.text()));
        note.signatures().stream().filter(s -> !(s.name().equals(name) && s.keyId() == keyId)).forEach(sigs::add);
        return new SignedNote(note.text(), sigs);
    }

    @Override
    public String toString() {
        return "NoteSigner[" + vkey() + "]";
    }

    private static TlogRejection malformed(String why) {
        return new TlogRejection(Kind.MALFORMED_KEY, "malformed private key: " + why, "");
    }
}
