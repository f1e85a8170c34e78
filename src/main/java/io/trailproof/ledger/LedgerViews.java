package io.trailproof.ledger;

import io.trailproof.core.chain.ChainFailure;
import io.trailproof.core.event.StoredEvent;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The read models the ledger hands to the HTTP layer and the CLI. */
public final class LedgerViews {

    private LedgerViews() {
    }

    /** One item of an append: either the stored event or why it was refused (nothing stored for it). */
    public record AppendOutcome(StoredEvent event, String error) {
        static AppendOutcome stored(StoredEvent event) {
            return new AppendOutcome(event, null);
        }

        static AppendOutcome refused(String error) {
            return new AppendOutcome(null, error);
        }

        public boolean ok() {
            return event != null;
        }
    }

    /** {@code GET /v1/agents} row: readable events only; {@code chainValid} and {@code verifiedAt} are set (an unverified chain is verified first). */
    public record AgentSummary(String agentId, long eventCount, String lastActivity, Boolean chainValid,
                               long headSequence, String headHash, Instant verifiedAt) {
    }

    /** The result of re-verifying one chain from storage. */
    public record ChainReport(String agentId, boolean valid, long eventsVerified, long headSequence, String headHash,
                              Optional<ChainFailure> failure, long erased) {
    }

    /** {@code GET /v1/stats}. */
    public record Stats(long totalEvents, long eventsLast24h, long activeAgents, double chainHealth, long totalAgents,
                        long treeSize, String merkleRoot) {
    }

    /** An RFC 9162 inclusion proof of one event. */
    public record InclusionProof(String eventId, long leafIndex, byte[] leafHash, long treeSize, byte[] root,
                                 List<byte[]> siblings) {
    }
}
