package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.note.NoteSignature;
import io.trailproof.core.note.SignedNote;
import io.trailproof.core.note.TlogCheckpoint;
import io.trailproof.core.note.TlogRejection;

import java.io.IOException;

/**
 * One witness cosignature as a record of the topic: the node that runs the cluster's scheduled work
 * asked the witness, verified its answer, and produces the checkpoint body it cosigned (origin, size,
 * root) with the cosignature line. Every node's apply loop checks that root against its own at that
 * size and keeps the cosignature with its own checkpoint of that size, so every node serves it.
 *
 * <pre>
 *   {"v": 1, "node": "&lt;node id&gt;", "request": "&lt;request id&gt;", "answer": "cosignature",
 *    "checkpoint": "&lt;origin&gt;\n&lt;size&gt;\n&lt;base64 root&gt;\n", "cosignature": "— &lt;witness&gt; &lt;base64&gt;"}
 * </pre>
 */
public record CosignatureWrite(String nodeId, String requestId, TlogCheckpoint checkpoint, NoteSignature cosignature) {

    static final String ANSWER = "cosignature";

    public byte[] encode() {
        ObjectNode o = WriteRecord.envelope(nodeId, requestId, ANSWER);
        o.put("checkpoint", checkpoint.text());
        o.put("cosignature", cosignature.line().strip());
        return WriteRecord.bytes(o);
    }

    /** Reads a record already parsed by {@link WriteRecord#parse} whose answer is "cosignature". */
    static CosignatureWrite decode(JsonNode o) throws IOException {
        JsonNode cp = o.get("checkpoint");
        JsonNode line = o.get("cosignature");
        if (cp == null || !cp.isTextual() || line == null || !line.isTextual()) {
            throw new IOException("the cosignature record lacks its checkpoint or its cosignature line");
        }
        try {
            return new CosignatureWrite(o.path("node").asText(), o.path("request").asText(),
                    TlogCheckpoint.parse(cp.asText()), SignedNote.parseSignatureLine(line.asText()));
        } catch (TlogRejection e) {
            throw new IOException("the record is not a consistent cosignature: " + e.getMessage());
        }
    }

    /** Whether a parsed record is a cosignature rather than a write of events or a timestamp. */
    static boolean is(JsonNode o) {
        return ANSWER.equals(o.path("answer").asText());
    }
}
