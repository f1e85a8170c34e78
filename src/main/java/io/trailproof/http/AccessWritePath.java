package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.access.AccessTrail;
import io.trailproof.cluster.AnswerSpec;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.index.BackgroundRecords;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.ReplicaOutcome;

import java.util.List;

/**
 * The access trail's batches through the same path as every write: one group of the ledger in the
 * embedded mode (durable on return), one record of the topic in cluster mode (applied on this node
 * on return). Redaction applies as to any client event: a query string may hold what it removes.
 * The positions of the stored records are told to the search index, so that no search waits for
 * the records of earlier reads (src/site/sign-in.md#durability-and-cost).
 */
final class AccessWritePath implements AccessTrail.Writes {

    private final Ledger ledger;
    private final ClusterNode cluster;
    private final BackgroundRecords background;

    /** {@code cluster} null in the embedded mode. */
    AccessWritePath(Ledger ledger, ClusterNode cluster, BackgroundRecords background) {
        this.ledger = ledger;
        this.cluster = cluster;
        this.background = background;
    }

    @Override
    public void write(List<ObjectNode> events) throws Exception {
        if (cluster != null) {
            if (cluster.submit(events, null, AnswerSpec.single()).get() instanceof ReplicaOutcome.Stored stored) {
                told(stored.outcomes());
            }
        } else {
            told(ledger.append(events));
        }
    }

    private void told(List<AppendOutcome> outcomes) {
        background.add(outcomes.stream().filter(AppendOutcome::ok).mapToLong(o -> o.event().logIndex()).toArray());
    }
}
