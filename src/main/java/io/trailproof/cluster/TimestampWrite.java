package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.timestamp.TimestampRecord;

import java.io.IOException;

/**
 * One RFC 3161 timestamp as a record of the topic: the record exactly as the embedded store keeps
 * it, stamped by the node that asked the TSA over its own root at its applied size. Every node's
 * apply loop checks that root against its own at that size and stores the record.
 *
 * <pre>
 *   {"v": 1, "node": "&lt;node id&gt;", "request": "&lt;request id&gt;", "answer": "timestamp",
 *    "timestamp": {&lt;the timestamp record&gt;}}
 * </pre>
 */
public record TimestampWrite(String nodeId, String requestId, TimestampRecord record) {

    static final String ANSWER = "timestamp";

    public byte[] encode() {
        ObjectNode o = WriteRecord.envelope(nodeId, requestId, ANSWER);
        o.set("timestamp", record.toJson());
        return WriteRecord.bytes(o);
    }

    /** Reads a record already parsed by {@link WriteRecord#parse} whose answer is "timestamp". */
    static TimestampWrite decode(JsonNode o) throws IOException {
        try {
            return new TimestampWrite(o.path("node").asText(), o.path("request").asText(),
                    TimestampRecord.fromJson(o.get("timestamp")));
        } catch (IllegalArgumentException e) {
            throw new IOException("the record is not a consistent trailproof timestamp: " + e.getMessage());
        }
    }

    /** Whether a parsed record is a timestamp rather than a write of events. */
    static boolean is(JsonNode o) {
        return ANSWER.equals(o.path("answer").asText());
    }
}
