package io.trailproof.core.evidence;

/**
 * The evidence package of src/site/evidence-format.md, version 1.0: the only home of its member names and fixed
 * values. The service writes packages with these names, the offline verifier reads them, and
 * {@code src/site/evidence-format.md} documents them for verifiers in other languages.
 *
 * <p>Members are written in the order of the constants below; {@link EvidenceVerifier} accepts any
 * order but streams in constant memory per event only in this one.
 */
public final class EvidenceFormat {
    private EvidenceFormat() {}

    /** Value of {@link #FORMAT}: identifies the document as an evidence package. */
    public static final String FORMAT_NAME = "trailproof-evidence";
    /** Value of {@link #VERSION} this code writes and understands. */
    public static final String VERSION_1_0 = "1.0";
    /** Value of {@link #HASH_ALGORITHM}: every hash in the package is SHA-256. */
    public static final String SHA_256 = "SHA-256";
    /** Value of {@link #CANONICALIZATION}: the event hash covers the RFC 8785 form (src/site/events.md#event-hash). */
    public static final String RFC_8785 = "RFC 8785";
    /** Value of {@link #MERKLE_TREE}: leaves, nodes and proofs are those of RFC 9162 section 2.1. */
    public static final String RFC_9162 = "RFC 9162";

    // Top-level members, in the order they are written.
    public static final String FORMAT = "format";
    public static final String VERSION = "version";
    public static final String EXPORTED_AT = "exported_at";
    public static final String FILTER = "filter";
    public static final String HASH_ALGORITHM = "hash_algorithm";
    public static final String CANONICALIZATION = "canonicalization";
    public static final String MERKLE_TREE = "merkle_tree";
    public static final String MERKLE_ROOT = "merkle_root";
    public static final String TREE_SIZE = "tree_size";
    public static final String CHAIN = "chain";
    public static final String EVENTS = "events";
    /**
     * Only when {@code events} holds erased events: the erasure events that name them, each
     * {@code {"event", "proof"}} (src/site/evidence-format.md#erasures).
     */
    public static final String ERASURES = "erasures";
    public static final String MERKLE_PROOFS = "merkle_proofs";
    public static final String TIMESTAMPS = "timestamps";
    /** The log's signed checkpoint note for exactly {@code tree_size} and {@code merkle_root} (src/site/checkpoints.md). */
    public static final String CHECKPOINT = "checkpoint";

    // Members of "filter".
    public static final String AGENT_ID = "agent_id";
    public static final String SINCE = "since";
    public static final String UNTIL = "until";

    // Members of "chain" (and AGENT_ID).
    public static final String LENGTH = "length";
    public static final String FIRST_SEQUENCE = "first_sequence";
    public static final String LAST_SEQUENCE = "last_sequence";
    public static final String ANCHOR_HASH = "anchor_hash";

    // Members of one "erasures" item (and PROOF, whose members are those of a merkle_proofs item's proof).
    public static final String EVENT = "event";

    // Members of one "merkle_proofs" item and of its "proof" (and TREE_SIZE).
    public static final String EVENT_ID = "event_id";
    public static final String PROOF = "proof";
    public static final String LEAF_HASH = "leaf_hash";
    public static final String LEAF_INDEX = "leaf_index";
    public static final String SIBLINGS = "siblings";

    // Members of one "timestamps" item that this package defines (the rest is the timestamp record
    // of src/site/timestamps.md#record, whose token the TokenChecker checks).
    public static final String CONSISTENCY_PROOF = "consistency_proof";
    public static final String FROM = "from";
    public static final String TO = "to";
}
