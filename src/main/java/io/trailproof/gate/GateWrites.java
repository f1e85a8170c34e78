package io.trailproof.gate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.ledger.DedupeTable;

import java.util.concurrent.CompletableFuture;

/**
 * How the gate appends the events it composes (decisions, approvals, violations, policy documents)
 * through the same write path as every other write: the local ledger in the embedded mode, the
 * replicated topic in cluster mode. Implemented by the HTTP layer, which knows which mode runs.
 */
public interface GateWrites {

    /**
     * Appends {@code fields} (composed by the service, stored as given, without redaction) to its
     * agent's chain. Completes once the event is durable (and, in cluster mode, applied on this
     * node) with its log index; or, for a keyed write ({@code claim} not null) whose key was
     * recorded before, with the log index the recorded answer names ({@link Stored#replayed} true),
     * storing nothing. Completes exceptionally with {@link KeyConflict} when the key was recorded
     * with other content. The caller releases {@code claim} once the future completes.
     */
    CompletableFuture<Stored> append(ObjectNode fields, DedupeTable.Claim claim);

    /**
     * Where the event is (or was, for a replay): its log index; and, for an event stored by this
     * write, the stored event itself, so that an answer is made without reading it back.
     *
     * @param event the event as stored (id, hash, log index set), or null for a replay
     */
    record Stored(long logIndex, boolean replayed, StoredEvent event) {
    }

    /** The key was recorded with other content. */
    final class KeyConflict extends Exception {
        public KeyConflict() {
            super("the key was recorded with other content");
        }
    }
}
