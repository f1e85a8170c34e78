package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The small members of a package as {@link PackageReader} found them: which top-level members it
 * met, the header members (format, version, filter, algorithms, root, tree size) and the chain
 * summary. A member that could not be read is present with a null value; one the package lacks is
 * absent. Filled by the reader; the checkers only read it.
 */
final class PackageHeader {
    private final Set<String> seen = new HashSet<>();
    private final Map<String, JsonNode> members = new HashMap<>();
    private JsonNode chain;

    /** Records a top-level member; false when the package already had one of that name. */
    boolean firstSighting(String name) {
        return seen.add(name);
    }

    /** Whether the package has the top-level member at all. */
    boolean seen(String name) {
        return seen.contains(name);
    }

    void put(String name, JsonNode value) {
        members.put(name, value);
    }

    /** Whether the header member was read (even if it could not be parsed). */
    boolean has(String name) {
        return members.containsKey(name);
    }

    /** The header member's value, null when absent or unreadable. */
    JsonNode get(String name) {
        return members.get(name);
    }

    void chain(JsonNode value) {
        chain = value;
    }

    /** The chain summary, null when absent or unreadable. */
    JsonNode chain() {
        return chain;
    }

    JsonNode filter() {
        return members.get(FILTER);
    }

    /** The stated root, null when it is missing or not a hash. */
    byte[] merkleRoot() {
        return FormatValues.hash(members.get(MERKLE_ROOT));
    }

    /** The stated tree size, null when it is missing or not a whole number. */
    Long treeSize() {
        return FormatValues.whole(members.get(TREE_SIZE));
    }
}
