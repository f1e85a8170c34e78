package io.trailproof.core.note;

import io.trailproof.core.merkle.InclusionCheck;
import io.trailproof.core.merkle.MerkleProofs;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A {@code c2sp.org/tlog-proof@v1} file, and the home of that format's constants: an offline proof
 * that an entry is in a log, made of optional extra data, the entry's index, its RFC 9162 inclusion
 * proof and a checkpoint (with any cosignatures) whose tree holds it.
 *
 * @param extra the opaque, unauthenticated extra data; null when absent
 * @param index the entry's index in the log
 * @param proof the inclusion proof, from the leaf's sibling up
 * @param checkpoint the signed checkpoint note, verbatim
 */
public record TlogProof(byte[] extra, long index, List<byte[]> proof, String checkpoint) {
    /** The first line of every proof. */
    public static final String HEADER = "c2sp.org/tlog-proof@v1";
    /** Recommended file extension. */
    public static final String FILE_EXTENSION = ".tlog-proof";
    /** An inclusion proof in a tree of at most 2^63 leaves has fewer hashes than this. */
    public static final int MAX_PROOF_LINES = 63;

    private static final String EXTRA = "extra ";
    private static final String INDEX = "index ";

    public TlogProof {
        extra = extra == null ? null : extra.clone();
        proof = proof.stream().map(byte[]::clone).toList();
    }

    @Override
    public byte[] extra() {
        return extra == null ? null : extra.clone();
    }

    /** The proof file's text. */
    public String format() {
        Base64.Encoder b64 = Base64.getEncoder();
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        if (extra != null) {
            b.append(EXTRA).append(b64.encodeToString(extra)).append('\n');
        }
        b.append(INDEX).append(index).append('\n');
        proof.forEach(h -> b.append(b64.encodeToString(h)).append('\n'));
        return b.append('\n').append(checkpoint).toString();
    }

    /** Parses a proof file; {@link Kind#MALFORMED_PROOF} when it is not one (the checkpoint is checked by {@link #verify}). */
    public static TlogProof parse(byte[] file) throws TlogRejection {
        String s = new String(file, StandardCharsets.UTF_8);
        if (!s.startsWith(HEADER + "\n")) {
            throw malformed("the first line is " + HEADER, firstLine(s));
        }
        int at = HEADER.length() + 1;
        byte[] extra = null;
        String line = lineAt(s, at);
        if (line.startsWith(EXTRA)) {
            extra = SignedNote.decodeBase64(line.substring(EXTRA.length()));
            if (extra == null) {
                throw malformed("the extra line is base64", line);
            }
            at += line.length() + 1;
            line = lineAt(s, at);
        }
        long index = line.startsWith(INDEX) ? TlogCheckpoint.parseDecimal(line.substring(INDEX.length())) : -1;
        if (index < 0) {
            throw malformed("an index line follows the header", line);
        }
        at += line.length() + 1;
        List<byte[]> proof = new ArrayList<>();
        for (line = lineAt(s, at); !line.isEmpty(); line = lineAt(s, at)) {
            byte[] hash = SignedNote.decodeBase64(line);
            if (!Rfc9162.isHash(hash) || proof.size() == MAX_PROOF_LINES) {
                throw malformed("each proof line is base64 of one 32-byte hash, at most " + MAX_PROOF_LINES, line);
            }
            proof.add(hash);
            at += line.length() + 1;
        }
        if (at >= s.length() || s.charAt(at) != '\n') {
            throw malformed("an empty line precedes the checkpoint", "");
        }
        return new TlogProof(extra, index, proof, s.substring(at + 1));
    }

    /**
     * What a verified proof establishes.
     *
     * @param checkpoint the log's checkpoint the entry is included in
     * @param note the opened checkpoint note, with the verified signatures (log and witnesses)
     */
    public record Verified(TlogCheckpoint checkpoint, NoteVerification.Opened note) {}

    /**
     * Verifies this proof for the entry whose RFC 9162 leaf hash is {@code leafHash}: the checkpoint
     * is signed by {@code log} and has its name as origin, is cosigned by every one of
     * {@code witnesses}, and the inclusion proof leads from the leaf at {@link #index} to its root.
     */
    public Verified verify(byte[] leafHash, NoteVerifier log, List<? extends NoteVerifier> witnesses)
            throws TlogRejection {
        List<NoteVerifier> trusted = new ArrayList<>(witnesses);
        trusted.add(0, log);
        NoteVerification.Opened opened = NoteVerification.open(checkpoint.getBytes(StandardCharsets.UTF_8), trusted);
        if (!opened.signedBy(log)) {
            throw new TlogRejection(Kind.NO_TRUSTED_SIGNATURE, "the checkpoint is not signed by the log key",
                    log.vkey());
        }
        for (NoteVerifier w : witnesses) {
            if (!opened.signedBy(w)) {
                throw new TlogRejection(Kind.MISSING_COSIGNATURE, "no cosignature from witness", w.vkey());
            }
        }
        TlogCheckpoint cp = TlogCheckpoint.parse(opened.note().text());
        if (!cp.origin().equals(log.name())) {
            throw new TlogRejection(Kind.WRONG_ORIGIN, "the checkpoint's origin is not the log key's name "
                    + log.name(), cp.origin());
        }
        InclusionCheck check = MerkleProofs.checkInclusion(leafHash, index, cp.size(), proof, cp.root());
        if (!check.valid()) {
            throw new TlogRejection(Kind.PROOF_FAILED, "inclusion proof of index " + index + " in tree size "
                    + cp.size() + " fails", check.reason());
        }
        return new Verified(cp, opened);
    }

    private static String lineAt(String s, int at) {
        if (at >= s.length()) {
            return "";
        }
        int nl = s.indexOf('\n', at);
        return nl < 0 ? s.substring(at) : s.substring(at, nl);
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static TlogRejection malformed(String why, String evidence) {
        return new TlogRejection(Kind.MALFORMED_PROOF, "malformed tlog-proof: " + why, evidence);
    }
}
