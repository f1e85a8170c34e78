package io.trailproof.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.json.Rfc8785;

import java.util.HexFormat;

/**
 * {@code args_sha256} (src/site/gates.md): lowercase hex of SHA-256 over the RFC 8785 form of
 * {@code {"action_name", "action_input"}} as stored (after redaction). An absent member is
 * {@code null}, so a call without input binds only to a decision without input.
 */
public final class ArgsDigest {

    private ArgsDigest() {
    }

    public static String of(JsonNode actionName, JsonNode actionInput) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.set("action_name", actionName == null || actionName.isMissingNode() ? NullNode.instance : actionName);
        o.set("action_input", actionInput == null || actionInput.isMissingNode() ? NullNode.instance : actionInput);
        return HexFormat.of().formatHex(EventHash.sha256(Rfc8785.canonicalize(o)));
    }

    /** The digest of a stored event's (or a proposal's) own {@code action_name} and {@code action_input}. */
    public static String ofEvent(JsonNode event) {
        return of(event.get("action_name"), event.get("action_input"));
    }
}
