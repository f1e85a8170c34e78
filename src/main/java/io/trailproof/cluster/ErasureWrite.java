package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.ledger.ErasureOrder;
import io.trailproof.ledger.LogRanges;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One erasure as a record of the topic (src/site/erasure.md#cluster-mode): the selector resolved
 * to log indexes by the node that accepted the request, with everything else the erasure event is
 * made from, so every node's apply loop records the same erasure event at the same log index and
 * erases the same content.
 *
 * <pre>
 *   {"v": 1, "node": "&lt;node id&gt;", "request": "&lt;request id&gt;", "answer": "erasure",
 *    "erasure": {"log_indexes": [[first, last], ...], "fields": ["action_input", ...],
 *                "reason": "...", "key": "key-1a2b3c4d" (absent without authentication),
 *                "selector": {&lt;what the request selected by&gt;}, "list_ids": true}}
 * </pre>
 */
public record ErasureWrite(String nodeId, String requestId, ErasureOrder order) {

    static final String ANSWER = "erasure";

    public byte[] encode() {
        ObjectNode o = WriteRecord.envelope(nodeId, requestId, ANSWER);
        ObjectNode e = o.putObject("erasure");
        ArrayNode ranges = e.putArray("log_indexes");
        LogRanges candidates = order.candidates();
        for (int r = 0; r < candidates.rangeCount(); r++) {
            ranges.addArray().add(candidates.first(r)).add(candidates.last(r));
        }
        ArrayNode fields = e.putArray("fields");
        order.fields().forEach(fields::add);
        e.put("reason", order.reason());
        if (order.keyName() != null) {
            e.put("key", order.keyName());
        }
        e.set("selector", order.selector());
        e.put("list_ids", order.listIds());
        return WriteRecord.bytes(o);
    }

    /** Reads a record already parsed by {@link WriteRecord#parse} whose answer is "erasure". */
    static ErasureWrite decode(JsonNode o) throws IOException {
        JsonNode e = o.get("erasure");
        if (e == null || !e.isObject() || !e.path("log_indexes").isArray() || !e.path("fields").isArray()
                || !e.path("reason").isTextual() || !e.path("selector").isObject() || !e.path("list_ids").isBoolean()
                || e.has("key") && !e.get("key").isTextual()) {
            throw new IOException("the record is not a consistent trailproof erasure");
        }
        LogRanges.Builder indexes = new LogRanges.Builder();
        long previous = -1;
        for (JsonNode r : e.get("log_indexes")) {
            if (!r.isArray() || r.size() != 2 || !r.get(0).canConvertToLong() || !r.get(1).canConvertToLong()
                    || r.get(0).longValue() <= previous || r.get(1).longValue() < r.get(0).longValue()) {
                throw new IOException("the erasure record's log_indexes are not ascending ranges [first, last]");
            }
            indexes.addRange(r.get(0).longValue(), r.get(1).longValue());
            previous = r.get(1).longValue();
        }
        List<String> fields = new ArrayList<>();
        for (JsonNode f : e.get("fields")) {
            if (!f.isTextual()) {
                throw new IOException("the erasure record's fields are not names");
            }
            fields.add(f.textValue());
        }
        return new ErasureWrite(o.path("node").asText(), o.path("request").asText(),
                new ErasureOrder(indexes.build(), fields, e.get("reason").textValue(),
                        e.has("key") ? e.get("key").textValue() : null, (ObjectNode) e.get("selector"),
                        e.get("list_ids").booleanValue()));
    }

    /** Whether a parsed record is an erasure. */
    static boolean is(JsonNode o) {
        return ANSWER.equals(o.path("answer").asText());
    }
}
