package io.trailproof.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.cluster.AnswerSpec;
import io.trailproof.cluster.ClusterNode;
import io.trailproof.gate.GateWrites;
import io.trailproof.ledger.DedupeTable;
import io.trailproof.ledger.KeyedAnswer;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.ledger.ReplicaOutcome;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The gate's writes through the same path as every write: the ledger's single-event group commit in
 * the embedded mode, the topic in cluster mode (applied by every node in the same order). A keyed
 * write records the single-event answer (its log index) in the event's own group, so a retry finds
 * the same event.
 */
final class GateWritePath implements GateWrites {

    private final Ledger ledger;
    private final ClusterNode cluster;

    /** {@code cluster} null in the embedded mode. */
    GateWritePath(Ledger ledger, ClusterNode cluster) {
        this.ledger = ledger;
        this.cluster = cluster;
    }

    @Override
    public CompletableFuture<Stored> append(ObjectNode fields, DedupeTable.Claim claim) {
        if (cluster != null) {
            return cluster.submitComposed(List.of(fields), claim, new AnswerSpec.Single()).thenApply(outcome -> switch (outcome) {
                case ReplicaOutcome.Stored s -> stored(s.outcomes().get(0));
                case ReplicaOutcome.Replayed r -> new Stored(IdempotentRequests.singleLogIndex(r.record().answer()), true,
                        null);
                case ReplicaOutcome.Conflicting c -> throw new CompletionException(new KeyConflict());
                case ReplicaOutcome.Erased e -> throw new IllegalStateException("a write was answered by an erasure");
            });
        }
        KeyedAnswer answer = claim == null ? null : new KeyedAnswer(claim, IdempotentRequests::singleAnswer);
        return ledger.appendComposedAsync(fields, answer).thenApply(GateWritePath::stored);
    }

    private static Stored stored(AppendOutcome o) {
        if (!o.ok()) {
            // Composed events are small and valid; a refusal (over 1 MiB with a huge input) is the caller's 400.
            throw new CompletionException(new IllegalArgumentException(o.error()));
        }
        return new Stored(o.event().logIndex(), false, o.event());
    }
}
