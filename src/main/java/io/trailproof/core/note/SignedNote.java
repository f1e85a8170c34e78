package io.trailproof.core.note;

import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * A C2SP signed note ({@code c2sp.org/signed-note}): a text ending in a newline, a blank line, and
 * one or more signature lines. This class is the home of that specification's constants and
 * syntax; verification against trusted keys is {@link NoteVerification}.
 *
 * <p>Parsing follows the specification and Go's {@code golang.org/x/mod/sumdb/note}: the note must
 * be valid UTF-8 without control characters other than newline; the text is everything up to the
 * last blank line; every following line is a signature line with a valid key name and standard,
 * canonical base64 of at least a key id and one byte; at most {@value #MAX_SIGNATURES} signatures.
 *
 * @param text the signed text, ending in a newline
 * @param signatures the signature lines in note order
 */
public record SignedNote(String text, List<NoteSignature> signatures) {
    /** Starts every signature line: em dash (U+2014) and a space. */
    public static final String SIGNATURE_PREFIX = "\u2014 ";
    /** Length of the key id that starts every signature. */
    public static final int KEY_ID_LENGTH = 4;
    /** Signature type of Ed25519 note signatures. */
    public static final byte TYPE_ED25519 = 0x01;
    /**
     * The most signatures a note may carry. The specification demands at least 16; Go's note
     * package allows 100, and so do we, so a note Go accepts is never refused here for its count.
     */
    public static final int MAX_SIGNATURES = 100;

    public SignedNote {
        signatures = List.copyOf(signatures);
    }

    /** The note as text: the text, the blank line, the signature lines. */
    public String format() {
        StringBuilder b = new StringBuilder(text).append('\n');
        signatures.forEach(s -> b.append(s.line()));
        return b.toString();
    }

    /** {@link #format()} as UTF-8. */
    public byte[] bytes() {
        return format().getBytes(StandardCharsets.UTF_8);
    }

    /** This note with {@code extra} appended to its signatures. */
    public SignedNote withSignatures(List<NoteSignature> extra) {
        List<NoteSignature> all = new ArrayList<>(signatures);
        all.addAll(extra);
        return new SignedNote(text, all);
    }

    /** Parses a note without checking any signature; {@link Kind#MALFORMED_NOTE} on any syntax error. */
    public static SignedNote parse(byte[] note) throws TlogRejection {
        String s = decodeUtf8(note);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 && c != '\n') {
                throw malformed("control character at offset " + i, s);
            }
        }
        int split = s.lastIndexOf("\n\n");
        if (split < 0) {
            throw malformed("no blank line before the signatures", s);
        }
        String text = s.substring(0, split + 1);
        String rest = s.substring(split + 2);
        if (rest.isEmpty() || !rest.endsWith("\n")) {
            throw malformed("signature lines must follow the blank line and end in a newline", rest);
        }
        List<NoteSignature> sigs = new ArrayList<>();
        for (String line : rest.substring(0, rest.length() - 1).split("\n", -1)) {
            if (sigs.size() == MAX_SIGNATURES) {
                throw malformed("more than " + MAX_SIGNATURES + " signatures", "");
            }
            sigs.add(parseSignatureLine(line));
        }
        return new SignedNote(text, sigs);
    }

    /** Parses one signature line without its newline. */
    public static NoteSignature parseSignatureLine(String line) throws TlogRejection {
        if (!line.startsWith(SIGNATURE_PREFIX)) {
            throw malformed("a signature line starts with an em dash and a space", line);
        }
        String body = line.substring(SIGNATURE_PREFIX.length());
        int space = body.indexOf(' ');
        if (space < 0) {
            throw malformed("a signature line is a key name, a space and base64", line);
        }
        String name = body.substring(0, space);
        byte[] raw = decodeBase64(body.substring(space + 1));
        if (!isValidName(name) || raw == null || raw.length <= KEY_ID_LENGTH) {
            throw malformed("bad key name or signature", line);
        }
        return new NoteSignature(name, ByteBuffer.wrap(raw).getInt(),
                Arrays.copyOfRange(raw, KEY_ID_LENGTH, raw.length));
    }

    /**
     * The recommended key id: the first four bytes, big-endian, of
     * SHA-256(key name || 0x0A || signature type || public key).
     */
    public static int keyId(String name, byte type, byte[] publicKey) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            md.update(name.getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
            md.update(type);
            md.update(publicKey);
            return ByteBuffer.wrap(md.digest()).getInt();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** A key name is non-empty and has neither Unicode spaces nor {@code +}. */
    public static boolean isValidName(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        return name.codePoints().noneMatch(cp -> cp == '+' || cp == 0x85
                || Character.isWhitespace(cp) || Character.isSpaceChar(cp) || Character.isISOControl(cp));
    }

    /**
     * Standard base64 (RFC 4648 section 4, with padding) that re-encodes to the same text, or null.
     * Refusing non-canonical forms means one signature has one spelling, so a changed byte in a
     * signature line always changes the signature.
     */
    static byte[] decodeBase64(String text) {
        try {
            byte[] raw = Base64.getDecoder().decode(text);
            return Base64.getEncoder().encodeToString(raw).equals(text) ? raw : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String decodeUtf8(byte[] bytes) throws TlogRejection {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("not valid UTF-8", "");
        }
    }

    private static TlogRejection malformed(String why, String evidence) {
        return new TlogRejection(Kind.MALFORMED_NOTE, "malformed note: " + why, evidence);
    }
}
