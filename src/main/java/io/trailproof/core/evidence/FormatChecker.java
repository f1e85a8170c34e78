package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;
import static io.trailproof.core.evidence.FormatValues.*;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The check {@link EvidenceCheck#FORMAT}: the document is a complete version 1.0 package. Its
 * findings come from three places, in the order they are made: the reader while it reads (a member
 * twice, a member it cannot read, a section that is not an array), the chain check when the chain
 * summary states no usable anchor, and at the end this class over the header (algorithms, version,
 * root, tree size, filter, chain summary and the three sections all present and well formed).
 */
final class FormatChecker {

    private final PackageHeader header;
    private final Tally format = new Tally(EvidenceCheck.FORMAT);

    FormatChecker(PackageHeader header) {
        this.header = header;
    }

    /** Where the reader and the chain check report what they find wrong with the format. */
    Tally findings() {
        return format;
    }

    /** Checks the header as read and gives the check's result; call once, after reading. */
    CheckResult result() {
        checkHeader();
        return format.result("a complete version " + VERSION_1_0 + " package");
    }

    private void checkHeader() {
        expectText(HASH_ALGORITHM, SHA_256);
        expectText(CANONICALIZATION, RFC_8785);
        expectText(MERKLE_TREE, RFC_9162);
        if (!header.has(VERSION)) {
            missing(VERSION);
        }
        if (header.merkleRoot() == null) {
            missingOr(MERKLE_ROOT, "64 lowercase hex digits");
        }
        Long size = header.treeSize();
        if (size == null || size < 0) {
            missingOr(TREE_SIZE, "a whole number");
        }
        JsonNode filter = header.filter();
        if (filter == null || !filter.isObject() || text(filter, AGENT_ID) == null) {
            missingOr(FILTER, "an object with agent_id, since and until");
        }
        for (String bound : new String[] {SINCE, UNTIL}) {
            String t = text(filter, bound);
            if (t != null && instant(t) == null) {
                format.fail(null, null, "filter." + bound + " as an ISO 8601 date-time", t,
                        "the export window cannot be read");
            }
        }
        if (header.chain() == null || !header.chain().isObject()) {
            missingOr(CHAIN, "an object with agent_id, length, first_sequence, last_sequence and anchor_hash");
        }
        for (String name : new String[] {EVENTS, MERKLE_PROOFS, TIMESTAMPS}) {
            if (!header.seen(name)) {
                missing(name);
            }
        }
    }

    private void expectText(String name, String value) {
        JsonNode v = header.get(name);
        if (v == null || !value.equals(v.textValue())) {
            format.fail(null, null, name + " \"" + value + "\"", v == null ? "missing" : v.toString(),
                    "the package says it was made with other algorithms than this version defines");
        }
    }

    private void missing(String name) {
        format.fail(null, null, "the member " + name, "missing", "the package lacks the member " + name);
    }

    private void missingOr(String name, String what) {
        JsonNode v = name.equals(CHAIN) ? header.chain() : header.get(name);
        format.fail(null, null, name + " as " + what, v == null ? "missing" : v.toString(),
                "the member " + name + " is missing or malformed");
    }
}
