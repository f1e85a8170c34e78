package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.redaction.Redactor;
import io.trailproof.ledger.LedgerViews.AppendOutcome;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The ledger's local writes ({@link Ledger#append} and the others, documented there): batches go to
 * {@link BatchAppends}, single events to {@link SingleAppends}, client events through the redactor.
 * A replica's log takes none of them: its only writer is {@link ReplicaApplies}, so each refuses with
 * a {@link LedgerUnavailableException}.
 */
final class LedgerWrites {

    private final BatchAppends batches;
    private final SingleAppends singles;
    /** Null when redaction is off. */
    private final Redactor redactor;
    private final boolean replica;

    LedgerWrites(BatchAppends batches, SingleAppends singles, Redactor redactor, boolean replica) {
        this.batches = batches;
        this.singles = singles;
        this.redactor = redactor;
        this.replica = replica;
    }

    /** The refusal of a local write to a replica's log. */
    static LedgerUnavailableException writtenThroughTheTopic() {
        return new LedgerUnavailableException("in cluster mode events are written through the Kafka topic; "
                + "this path does not support cluster mode yet", null);
    }

    List<AppendOutcome> append(List<ObjectNode> events) throws IOException {
        refuseInReplica();
        return batches.append(events);
    }

    List<AppendOutcome> append(List<ObjectNode> events, KeyedAnswer answer) throws IOException {
        return appendKeyed(events, List.of(new Sequencer.Keyed(0, events.size(), answer)));
    }

    List<AppendOutcome> appendEach(List<ObjectNode> events, List<KeyedAnswer> answers) throws IOException {
        if (answers.size() != events.size()) {
            throw new IllegalArgumentException("one keyed answer (or null) per event");
        }
        List<Sequencer.Keyed> keyed = new ArrayList<>(events.size());
        for (int i = 0; i < events.size(); i++) {
            if (answers.get(i) != null) {
                keyed.add(new Sequencer.Keyed(i, i + 1, answers.get(i)));
            }
        }
        return appendKeyed(events, keyed);
    }

    CompletableFuture<AppendOutcome> appendAsync(ObjectNode fields, KeyedAnswer answer) {
        return replica ? notInCluster() : singles.submit(Submission.of(fields, redactor), answer);
    }

    CompletableFuture<AppendOutcome> appendAsync(ObjectNode fields) {
        return replica ? notInCluster() : singles.submit(Submission.of(fields, redactor));
    }

    /** A composed event: never redacted (its composer redacted what client text it carries). */
    CompletableFuture<AppendOutcome> appendComposedAsync(ObjectNode fields, KeyedAnswer answer) {
        if (replica) {
            return notInCluster();
        }
        Submission s = new Submission(fields, 0);
        return answer == null ? singles.submit(s) : singles.submit(s, answer);
    }

    private List<AppendOutcome> appendKeyed(List<ObjectNode> events, List<Sequencer.Keyed> keyed) throws IOException {
        refuseInReplica();
        return batches.appendKeyed(events, keyed);
    }

    private void refuseInReplica() throws LedgerUnavailableException {
        if (replica) {
            throw writtenThroughTheTopic();
        }
    }

    private static CompletableFuture<AppendOutcome> notInCluster() {
        return CompletableFuture.failedFuture(new LedgerUnavailableException("in cluster mode events are written "
                + "through the Kafka topic", null));
    }
}
