package io.trailproof.core.gate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.trailproof.core.event.EventHash;
import io.trailproof.core.json.Rfc8785;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * {@code args_sha256} (src/site/gates.md): lowercase hex of SHA-256 over the RFC 8785 form of
 * {@code {"action_name", "action_input"}} as stored (after redaction). An absent member is
 * {@code null}, so a call without input binds only to a decision without input.
 */
public final class ArgsDigest {

    /** The canonical form's bytes around its two members: RFC 8785 orders {@code action_input} first. */
    private static final byte[] OPEN = "{\"action_input\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BETWEEN = ",\"action_name\":".getBytes(StandardCharsets.UTF_8);
    private static final byte[] CLOSE = "}".getBytes(StandardCharsets.UTF_8);
    /** One digest per thread, reset by each use: a decision digests its arguments on its request's thread. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(EventHash::newDigest);

    private ArgsDigest() {
    }

    /**
     * The digest of the canonical form of {@code {"action_name", "action_input"}}, hashed in pieces
     * (the object's own bytes around each member's canonical form) without building the object.
     */
    public static String of(JsonNode actionName, JsonNode actionInput) {
        MessageDigest d = SHA256.get();
        d.reset();
        d.update(OPEN);
        d.update(Rfc8785.canonicalize(orNull(actionInput)));
        d.update(BETWEEN);
        d.update(Rfc8785.canonicalize(orNull(actionName)));
        d.update(CLOSE);
        return HexFormat.of().formatHex(d.digest());
    }

    private static JsonNode orNull(JsonNode value) {
        return value == null || value.isMissingNode() ? NullNode.instance : value;
    }

    /** The digest of a stored event's (or a proposal's) own {@code action_name} and {@code action_input}. */
    public static String ofEvent(JsonNode event) {
        return of(event.get("action_name"), event.get("action_input"));
    }
}
