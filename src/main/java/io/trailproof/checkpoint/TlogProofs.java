package io.trailproof.checkpoint;

import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.note.TlogProof;
import io.trailproof.ledger.Ledger;
import io.trailproof.ledger.LedgerViews.InclusionProof;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The {@code c2sp.org/tlog-proof@v1} file of one event (src/site/checkpoints.md): {@code extra} is the UTF-8 text
 * {@code <event id> <event hash hex>} (so an offline verifier has the leaf, and with the event's JSON
 * can recompute it), the index is the event's {@code log_index}, and the checkpoint is one that holds
 * the event: the latest cosigned one when witnesses are configured and one covers it, else the latest
 * signed one, else one signed on the spot.
 */
public final class TlogProofs {
    private final Ledger ledger;
    private final CheckpointService checkpoints;

    public TlogProofs(Ledger ledger, CheckpointService checkpoints) {
        this.ledger = ledger;
        this.checkpoints = checkpoints;
    }

    /**
     * The proof file for {@code eventId}; empty when there is no such event.
     *
     * @throws IllegalStateException when no checkpoint can cover the event (signing is refused)
     */
    public Optional<String> proof(String eventId) throws IOException {
        Optional<byte[]> payload = ledger.eventPayload(eventId);
        if (payload.isEmpty()) {
            return Optional.empty();
        }
        StoredEvent event;
        try {
            event = StoredEvent.parse(payload.get());
        } catch (StoredEventFormatException e) {
            throw new IOException("stored event " + eventId + " does not parse: " + e.getMessage(), e);
        }
        SignedCheckpoint cp = covering(event.logIndex());
        InclusionProof p = ledger.inclusionProof(eventId, cp.size()).orElseThrow();
        byte[] extra = (eventId + " " + event.hash()).getBytes(StandardCharsets.UTF_8);
        return Optional.of(new TlogProof(extra, p.leafIndex(), p.siblings(), cp.text()).format());
    }

    private SignedCheckpoint covering(long index) throws IOException {
        Optional<SignedCheckpoint> cosigned = checkpoints.latestCosigned();
        if (cosigned.isPresent() && cosigned.get().size() > index) {
            return cosigned.get();
        }
        Optional<SignedCheckpoint> latest = checkpoints.latest();
        if (latest.isEmpty() || latest.get().size() <= index) {
            latest = checkpoints.signIfGrown().or(checkpoints::latest);
        }
        return latest.filter(c -> c.size() > index).orElseThrow(() -> new IllegalStateException(
                "no signed checkpoint covers log index " + index
                        + checkpoints.refusal().map(r -> ": checkpoint signing stopped: " + r).orElse("")));
    }
}
