package io.trailproof.core.chain;

/**
 * Why a chain does not verify, with the evidence: which check, at which sequence, what the check
 * expected and what the stored data gave. {@link #message()} is the sentence the API and the CLI
 * show (src/site/http-api.md#endpoints: "hash mismatch at sequence 42").
 */
public record ChainFailure(Kind kind, long sequence, String expected, String actual) {

    public enum Kind {
        /** The stored event's content does not hash to its {@code hash}, or it cannot be read at all. */
        HASH_MISMATCH("hash mismatch"),
        /** {@code prev_hash} is not the hash of the agent's previous event (or the anchor / genesis). */
        PREV_HASH_MISMATCH("prev_hash mismatch"),
        /** The expected sequence number is missing: an event was removed, reordered or renumbered. */
        SEQUENCE_GAP("sequence gap"),
        /** The event's leaf in the Merkle tree is not the RFC 9162 leaf hash of its {@code hash}. */
        MERKLE_LEAF_MISMATCH("merkle leaf mismatch"),
        /**
         * The event is marked erased but no erasure record of the trail names it (or another one
         * does): content removed outside an erasure (src/site/erasure.md#verification).
         */
        ERASURE_WITHOUT_RECORD("erasure without record");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    public String message() {
        return kind.label() + " at sequence " + sequence;
    }
}
