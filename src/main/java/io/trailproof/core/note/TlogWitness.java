package io.trailproof.core.note;

import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The {@code c2sp.org/tlog-witness} {@code add-checkpoint} request body, and the home of that
 * protocol's constants: an {@code old <size>} line, the consistency proof from that size (one base64
 * hash a line, at most {@value #MAX_PROOF_LINES}), an empty line, the signed checkpoint.
 *
 * @param oldSize the size of the checkpoint the witness last cosigned, as the log believes
 * @param proof the RFC 9162 consistency proof from {@code oldSize} to the checkpoint's size
 * @param checkpoint the signed checkpoint note, verbatim
 */
public record TlogWitness(long oldSize, List<byte[]> proof, String checkpoint) {
    /** Media type of a 409 answer, whose body is the witness's size and a newline. */
    public static final String SIZE_CONTENT_TYPE = "text/x.tlog.size";
    /** The most consistency proof lines a client may send. */
    public static final int MAX_PROOF_LINES = 63;
    /** Status of a witness whose latest cosigned size is not {@code old}, or same size with another root. */
    public static final int CONFLICT = 409;
    /** Status of a witness that could not verify the consistency proof. */
    public static final int UNPROCESSABLE = 422;
    /** Status of a witness that does not know the origin. */
    public static final int UNKNOWN_ORIGIN = 404;
    /** Status of a witness that trusts none of the checkpoint's signatures. */
    public static final int FORBIDDEN = 403;

    private static final String OLD = "old ";

    public TlogWitness {
        proof = proof.stream().map(byte[]::clone).toList();
    }

    /** The request body's text. */
    public String format() {
        StringBuilder b = new StringBuilder(OLD).append(oldSize).append('\n');
        proof.forEach(h -> b.append(Base64.getEncoder().encodeToString(h)).append('\n'));
        return b.append('\n').append(checkpoint).toString();
    }

    /** Parses a request body (for a witness); {@link Kind#MALFORMED_PROOF} when it is not one. */
    public static TlogWitness parse(byte[] body) throws TlogRejection {
        String s = new String(body, StandardCharsets.UTF_8);
        int nl = s.indexOf('\n');
        long old = nl < 0 || !s.startsWith(OLD) ? -1 : TlogCheckpoint.parseDecimal(s.substring(OLD.length(), nl));
        if (old < 0) {
            throw malformed("the first line is old <size>", nl < 0 ? s : s.substring(0, nl));
        }
        List<byte[]> proof = new ArrayList<>();
        int at = nl + 1;
        while (true) {
            int end = s.indexOf('\n', at);
            if (end < 0) {
                throw malformed("an empty line precedes the checkpoint", "");
            }
            if (end == at) {
                return new TlogWitness(old, proof, s.substring(end + 1));
            }
            byte[] hash = SignedNote.decodeBase64(s.substring(at, end));
            if (!Rfc9162.isHash(hash) || proof.size() == MAX_PROOF_LINES) {
                throw malformed("each proof line is base64 of one 32-byte hash, at most " + MAX_PROOF_LINES,
                        s.substring(at, end));
            }
            proof.add(hash);
            at = end + 1;
        }
    }

    /** The size in a 409 answer's body ({@code <decimal>\n}), or -1 when the body is not one. */
    public static long parseSizeAnswer(String body) {
        return body.endsWith("\n") ? TlogCheckpoint.parseDecimal(body.substring(0, body.length() - 1)) : -1;
    }

    /**
     * The signature lines of a 200 answer (one or more lines starting with an em dash, each ending in a
     * newline); {@link Kind#MALFORMED_NOTE} when the body is anything else.
     */
    public static List<NoteSignature> parseCosignatures(String body) throws TlogRejection {
        if (body.isEmpty() || !body.endsWith("\n")) {
            throw new TlogRejection(Kind.MALFORMED_NOTE, "a witness answers signature lines", body);
        }
        List<NoteSignature> sigs = new ArrayList<>();
        for (String line : body.substring(0, body.length() - 1).split("\n", -1)) {
            if (sigs.size() == SignedNote.MAX_SIGNATURES) {
                throw new TlogRejection(Kind.MALFORMED_NOTE, "too many signature lines", "");
            }
            sigs.add(SignedNote.parseSignatureLine(line));
        }
        return sigs;
    }

    private static TlogRejection malformed(String why, String evidence) {
        return new TlogRejection(Kind.MALFORMED_PROOF, "malformed add-checkpoint request: " + why, evidence);
    }
}
