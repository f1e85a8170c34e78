package io.trailproof.core.evidence;

/**
 * The checks of an evidence package, in the order the report lists them (src/site/evidence-format.md): the checks of
 * the events themselves first, so that the first failure named is the most telling one. Each has a
 * stable name (the JSON report and scripts use it) and a sentence saying, for a reader who is not a
 * cryptographer, what passing it means.
 */
public enum EvidenceCheck {
    FORMAT("format", "The file is a complete trailproof evidence package, version 1.0 (SHA-256, RFC 8785, RFC 9162)."),
    EVENT_HASHES("event_hashes", "Every event's hash, recomputed from its content, equals the hash it carries: "
            + "no event was changed after it was recorded."),
    SEQUENCES("sequences", "Sequence numbers follow each other without gaps: no event was removed, added or reordered."),
    ANCHOR("anchor", "The first event links to the package's anchor hash (64 zeros when it is the agent's first event)."),
    PREV_HASH_LINKS("prev_hash_links", "Every further event links to the hash of the event before it."),
    CHAIN_SUMMARY("chain_summary", "The package's chain summary (agent, number of events, first and last sequence) "
            + "matches the events it contains."),
    INCLUSION_PROOFS("inclusion_proofs", "Every event is included in the log whose Merkle tree has the stated "
            + "root and size (one RFC 9162 inclusion proof per event)."),
    WINDOW("window", "The first and last events have a timestamp inside the requested time window."),
    TIMESTAMPS("timestamps", "Each timestamp is a valid RFC 3161 token over an earlier root of this same log."),
    CHECKPOINT("checkpoint", "The package's tree size and root are those of a checkpoint signed by the log's key "
            + "(c2sp.org/tlog-checkpoint), which witnesses and monitors can compare with what everyone else was shown."),
    GATE_BINDINGS("gate_bindings", "Every action bound to a gate decision was allowed by it, once, with exactly its "
            + "arguments, or the trail records the violation (a GATE_VIOLATION event).");

    private final String id;
    private final String meaning;

    EvidenceCheck(String id, String meaning) {
        this.id = id;
        this.meaning = meaning;
    }

    /** The stable name, e.g. {@code event_hashes}. */
    public String id() {
        return id;
    }

    /** What passing the check means, in one sentence. */
    public String meaning() {
        return meaning;
    }
}
