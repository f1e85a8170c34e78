package io.trailproof.core.note;

import io.trailproof.core.note.TlogRejection.Kind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Opens a signed note against a set of trusted keys, with signed-note's rules (and the behaviour of
 * Go's {@code note.Open}): signatures from unknown keys (name and key id not both matching a trusted
 * key) are ignored and reported as unverified; a signature from a trusted key must verify, or the
 * whole note is refused; at least one trusted signature must verify. A trusted key that appears
 * twice in the list is ambiguous and refused when a signature names it.
 */
public final class NoteVerification {

    private NoteVerification() {}

    /**
     * The result of opening a note.
     *
     * @param note the note as parsed, with all its signatures
     * @param verified the signatures by trusted keys, each verified, once per key
     * @param unverified the signatures by unknown keys, each distinct one once
     */
    public record Opened(SignedNote note, List<NoteSignature> verified, List<NoteSignature> unverified) {
        public Opened {
            verified = List.copyOf(verified);
            unverified = List.copyOf(unverified);
        }

        /** True when {@code verifier}'s key signed the note. */
        public boolean signedBy(NoteVerifier verifier) {
            return verified.stream().anyMatch(s -> s.name().equals(verifier.name()) && s.keyId() == verifier.keyId());
        }
    }

    /** Parses {@code note} and verifies it; see the class comment for the rules. */
    public static Opened open(byte[] note, List<? extends NoteVerifier> trusted) throws TlogRejection {
        return open(SignedNote.parse(note), trusted);
    }

    /** Verifies an already parsed note; see the class comment for the rules. */
    public static Opened open(SignedNote note, List<? extends NoteVerifier> trusted) throws TlogRejection {
        List<NoteSignature> verified = new ArrayList<>();
        Set<NoteSignature> unverified = new LinkedHashSet<>();
        Set<String> seen = new HashSet<>();
        for (NoteSignature sig : note.signatures()) {
            List<? extends NoteVerifier> keys = trusted.stream()
                    .filter(v -> v.name().equals(sig.name()) && v.keyId() == sig.keyId()).toList();
            String key = sig.name() + "+" + VerifierKey.keyIdHex(sig.keyId());
            if (keys.isEmpty()) {
                unverified.add(sig);
                continue;
            }
            if (keys.size() > 1) {
                throw new TlogRejection(Kind.AMBIGUOUS_KEY, "ambiguous key " + key, sig.toString());
            }
            if (!seen.add(key)) {
                continue;
            }
            if (!keys.get(0).verify(note.text(), sig.signature())) {
                throw new TlogRejection(Kind.INVALID_SIGNATURE, "invalid signature for key " + key, sig.toString());
            }
            verified.add(sig);
        }
        if (verified.isEmpty()) {
            throw new TlogRejection(Kind.NO_TRUSTED_SIGNATURE, "note has no verifiable signatures",
                    note.signatures().stream().map(NoteSignature::toString).reduce((a, b) -> a + "\n" + b).orElse(""));
        }
        return new Opened(note, verified, new ArrayList<>(unverified));
    }
}
