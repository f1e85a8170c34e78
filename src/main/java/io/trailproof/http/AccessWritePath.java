package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.access.AccessTrail;
import io.trailproof.cluster.AnswerSpec;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.ledger.Ledger;

import java.util.List;

/**
 * The access trail's batches through the same path as every write: one group of the ledger in the
 * embedded mode (durable on return), one record of the topic in cluster mode (applied on this node
 * on return). Redaction applies as to any client event: a query string may hold what it removes.
 */
final class AccessWritePath implements AccessTrail.Writes {

    private final Ledger ledger;
    private final ClusterNode cluster;

    /** {@code cluster} null in the embedded mode. */
    AccessWritePath(Ledger ledger, ClusterNode cluster) {
        this.ledger = ledger;
        this.cluster = cluster;
    }

    @Override
    public void write(List<ObjectNode> events) throws Exception {
        if (cluster != null) {
            cluster.submit(events, null, AnswerSpec.single()).get();
        } else {
            ledger.append(events);
        }
    }
}
