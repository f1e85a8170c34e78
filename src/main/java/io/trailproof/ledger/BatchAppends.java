package io.trailproof.ledger;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.redaction.Redactor;
import io.trailproof.ledger.LedgerViews.AppendOutcome;
import io.trailproof.store.EventLog;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The ledger's batch writes, sequenced on the caller's thread (single events go through
 * {@link SingleAppends} instead). <b>Durable on return:</b> every stored event, and every dedupe
 * record written in the same group, is forced before a method returns; the records are then in the
 * dedupe table and {@code afterDurable} has been told the new end. <b>Atomic:</b> a group's events
 * and records share one commit frame, so after a crash all of them are in the log or none is. On an
 * exception nothing of the group is acknowledged and writes stop ({@link Sequencer#durabilityFailed}).
 */
final class BatchAppends {

    private final Sequencer sequencer;
    private final EventLog log;
    private final DedupeTable dedupe;
    /** Null when redaction is off. */
    private final Redactor redactor;
    private final LongConsumer afterDurable;

    BatchAppends(Sequencer sequencer, EventLog log, DedupeTable dedupe, Redactor redactor, LongConsumer afterDurable) {
        this.sequencer = sequencer;
        this.log = log;
        this.dedupe = dedupe;
        this.redactor = redactor;
        this.afterDurable = afterDurable;
    }

    /** See {@link Ledger#append(List)}. */
    List<AppendOutcome> append(List<ObjectNode> events) throws IOException {
        Sequencer.Sequenced s = sequencer.sequence(Submission.of(events, redactor));
        try {
            log.awaitDurable(s.end());
        } catch (IOException e) {
            throw sequencer.durabilityFailed(e);
        }
        afterDurable.accept(s.end());
        return Arrays.asList(s.outcomes());
    }

    /** See {@link Ledger#append(List, KeyedAnswer)} and {@link Ledger#appendEach}. */
    List<AppendOutcome> appendKeyed(List<ObjectNode> events, List<Sequencer.Keyed> keyed) throws IOException {
        Sequencer.Sequenced s = sequencer.sequence(Submission.of(events, redactor), keyed);
        try {
            if (s.stored() == 0 && !s.records().isEmpty()) {
                log.forceWritten();   // records alone advance no index, so no count names them durable
            } else {
                log.awaitDurable(s.end());
            }
        } catch (IOException e) {
            throw sequencer.durabilityFailed(e);
        }
        s.publish(dedupe);
        afterDurable.accept(s.end());
        return Arrays.asList(s.outcomes());
    }
}
