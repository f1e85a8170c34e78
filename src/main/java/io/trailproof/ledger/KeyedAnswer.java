package io.trailproof.ledger;

import io.trailproof.ledger.LedgerViews.AppendOutcome;

import java.util.List;

/**
 * What a keyed write records in its own group, beside its events: the claim it holds
 * ({@link DedupeTable#claim}) and how to turn the sealed outcomes into the answer to record as a
 * {@link DedupeRecord} under that key (src/site/ingestion.md#idempotency).
 *
 * @param claim the key the write holds; recorded once the group is durable
 * @param answer builds the namespace's answer bytes from the outcomes of this write's events (in
 *     order), or returns null to record nothing (a write refused as a whole). Called while the
 *     group is sealed, under the sequencer's lock: it must be quick and must not block.
 */
public record KeyedAnswer(DedupeTable.Claim claim, AnswerBuilder answer) {

    @FunctionalInterface
    public interface AnswerBuilder {
        byte[] build(List<AppendOutcome> outcomes);
    }
}
