package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.ledger.Ledger;

import java.util.HexFormat;

/**
 * {@code GET /v1/cluster}: the node answering, its applied size and root, how far it
 * applied the topic and where the topic ends (its lag is the difference), and whether it runs the
 * cluster's scheduled work (scheduled timestamps, witness requests). In the embedded mode:
 * the mode, size and root.
 */
final class ClusterEndpoints {

    /** How long the answer waits for Kafka to give the topic's end offset. */
    private static final long KAFKA_WAIT_MILLIS = 2_000;

    private final Ledger ledger;
    private final ClusterNode node;

    ClusterEndpoints(Ledger ledger, ClusterNode node) {
        this.ledger = ledger;
        this.node = node;
    }

    void register(Router router) {
        router.get("/v1/cluster", (ex, p) -> Responses.json(ex, 200, status()));
    }

    private ObjectNode status() {
        ObjectNode o = Responses.MAPPER.createObjectNode();
        if (node == null) {
            long size = ledger.size();
            o.put("mode", "embedded");
            o.put("applied_size", size);
            o.put("root", HexFormat.of().formatHex(ledger.root(size)));
            return o;
        }
        ClusterNode.Status s = node.status(KAFKA_WAIT_MILLIS);
        o.put("mode", "kafka");
        o.put("node_id", s.nodeId());
        o.put("topic", s.topic());
        o.put("applied_size", s.appliedSize());
        o.put("root", s.root());
        o.put("applied_offset", s.appliedOffset());
        if (s.topicEndOffset() >= 0) {
            o.put("topic_end_offset", s.topicEndOffset());
            o.put("lag", Math.max(0, s.topicEndOffset() - 1 - s.appliedOffset()));
        } else {
            o.putNull("topic_end_offset");
            o.put("topic_error", s.topicError());
        }
        o.put("applying", s.applyLoopFailure() == null);
        o.put("scheduler", s.scheduler());
        if (s.applyLoopFailure() != null) {
            o.put("apply_error", s.applyLoopFailure());
        }
        ArrayNode w = o.putArray("warnings");
        s.warnings().forEach(w::add);
        return o;
    }
}
