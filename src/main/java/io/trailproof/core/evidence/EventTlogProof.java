package io.trailproof.core.evidence;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.merkle.Rfc9162;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.NoteVerifier;
import io.trailproof.core.note.TlogProof;
import io.trailproof.core.note.TlogRejection;
import io.trailproof.core.note.TlogRejection.Kind;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Offline verification of one event's tlog-proof as this service writes it (src/site/checkpoints.md): the
 * {@code extra} line is {@code <event id> <event hash hex>}, the leaf is that hash. The checkpoint
 * must be signed by the log key and cosigned by every given witness key, and the inclusion proof
 * must lead from the leaf to the checkpoint's root. With the event's JSON, its hash is recomputed
 * (RFC 8785) and must be the proven one, and its id and {@code log_index} must match.
 */
public final class EventTlogProof {

    private EventTlogProof() {}

    /**
     * What a valid proof establishes.
     *
     * @param eventId the event's id, from the proof's extra data
     * @param eventHash the proven event hash, hex
     * @param index the event's log index
     * @param verified the checkpoint and its verified signatures
     */
    public record Result(String eventId, String eventHash, long index, TlogProof.Verified verified) {
        /** The names of the witnesses whose cosignatures verified. */
        public List<String> witnesses() {
            List<NoteSignature> sigs = verified.note().verified();
            return sigs.subList(1, sigs.size()).stream().map(NoteSignature::name).toList();
        }
    }

    /** Verifies {@code file}; {@code event} may be null (then its hash is not recomputed). */
    public static Result verify(byte[] file, NoteVerifier log, List<? extends NoteVerifier> witnesses, JsonNode event)
            throws TlogRejection {
        TlogProof proof = TlogProof.parse(file);
        String extra = proof.extra() == null ? "" : new String(proof.extra(), StandardCharsets.UTF_8);
        String[] parts = extra.split(" ", -1);
        if (parts.length != 2 || !EventHash.isHex(parts[1])) {
            throw new TlogRejection(Kind.MALFORMED_PROOF, "the extra data must be '<event id> <event hash hex>'", extra);
        }
        byte[] eventHash = HexFormat.of().parseHex(parts[1]);
        TlogProof.Verified verified = proof.verify(Rfc9162.leafHash(eventHash), log, witnesses);
        if (event != null) {
            byte[] recomputed = EventHash.of(event);
            if (!MessageDigest.isEqual(recomputed, eventHash)) {
                throw new TlogRejection(Kind.PROOF_FAILED, "the event's recomputed hash is "
                        + EventHash.toHex(recomputed) + ", not the proven " + parts[1], event.path("id").asText());
            }
            if (!parts[0].equals(event.path("id").asText()) || event.path("log_index").asLong(-1) != proof.index()) {
                throw new TlogRejection(Kind.PROOF_FAILED, "the event's id or log_index is not the proof's ("
                        + parts[0] + ", index " + proof.index() + ")", event.path("id").asText());
            }
        }
        return new Result(parts[0], parts[1], proof.index(), verified);
    }
}
