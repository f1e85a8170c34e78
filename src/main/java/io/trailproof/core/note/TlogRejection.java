package io.trailproof.core.note;

/**
 * Why a signed note, checkpoint, tile path, tlog-proof or cosignature was refused, with the
 * evidence: the offending line, key or value, quoted so an operator can see it. The message is
 * meant for people; programs branch on {@link #kind()}.
 */
public final class TlogRejection extends Exception {
    private static final long serialVersionUID = 1L;
    // Evidence is quoted for people; a hostile input must not flood a log line.
    private static final int MAX_EVIDENCE = 200;

    /** The kinds of refusal, each a distinct rule of the C2SP specifications. */
    public enum Kind {
        /** signed-note: not the note syntax (lines, characters, names, base64, too many signatures). */
        MALFORMED_NOTE,
        /** signed-note: a verifier or private key text that is not well formed or does not match its key id. */
        MALFORMED_KEY,
        /** signed-note: no signature from a trusted key. */
        NO_TRUSTED_SIGNATURE,
        /** signed-note: a signature from a trusted key that does not verify. */
        INVALID_SIGNATURE,
        /** signed-note: two trusted keys with the same name and key id. */
        AMBIGUOUS_KEY,
        /** tlog-checkpoint: a note body that is not origin, size, root. */
        MALFORMED_CHECKPOINT,
        /** tlog-checkpoint: the origin is not the expected log. */
        WRONG_ORIGIN,
        /** tlog-tiles: a tile path outside the encoding. */
        MALFORMED_TILE_PATH,
        /** tlog-proof or tlog-witness: a proof file or request body outside the format. */
        MALFORMED_PROOF,
        /** RFC 9162: the inclusion or consistency proof does not lead to the signed root. */
        PROOF_FAILED,
        /** tlog-cosignature: a required witness did not cosign. */
        MISSING_COSIGNATURE
    }

    private final Kind kind;
    private final String evidence;

    public TlogRejection(Kind kind, String message, String evidence) {
        super(message + (evidence == null || evidence.isEmpty() ? "" : ": " + quote(evidence)));
        this.kind = kind;
        this.evidence = evidence == null ? "" : evidence;
    }

    /** Which rule was broken. */
    public Kind kind() {
        return kind;
    }

    /** The offending text (a line, key or value), unquoted; empty when there is nothing to show. */
    public String evidence() {
        return evidence;
    }

    private static String quote(String s) {
        String cut = s.length() > MAX_EVIDENCE ? s.substring(0, MAX_EVIDENCE) + "..." : s;
        StringBuilder b = new StringBuilder("\"");
        cut.codePoints().forEach(cp -> {
            if (cp == '\n') {
                b.append("\\n");
            } else if (cp < 0x20 || cp == 0x7f) {
                b.append(String.format("\\x%02x", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.append('"').toString();
    }
}
