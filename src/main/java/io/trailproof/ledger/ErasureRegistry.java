package io.trailproof.ledger;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.chain.ErasureRecords;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.store.EventLog;

import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which erasure event names which log index (src/site/erasure.md#verification), read from the
 * erasure events of the trail (agent {@link EventFields#ERASURES_AGENT}): their
 * {@code action_input.log_indexes} as ranges {@code [first, last]}. Derived from the log at open
 * and kept in memory (a range per run of erased indexes). Thread-safe.
 */
final class ErasureRegistry implements ErasureRecords {

    /** Range start to (range end inclusive, erasure id). */
    private record Range(long last, String erasureId) {
    }

    private final TreeMap<Long, Range> ranges = new TreeMap<>();

    /** Reads every erasure event of the log below {@code end}. */
    static ErasureRegistry load(EventLog log, AgentTable agents, long end) throws IOException {
        ErasureRegistry r = new ErasureRegistry();
        AgentState state = agents.get(EventFields.ERASURES_AGENT);
        if (state != null) {
            long[] positions = state.positionsBelow(end);
            log.readEach(positions, (index, payload) -> {
                try {
                    r.add(StoredEvent.parse(payload));
                } catch (StoredEventFormatException e) {
                    throw new IOException("erasure event at log index " + index + " is unreadable: " + e.getMessage(), e);
                }
            });
        }
        return r;
    }

    /** Records the indexes an erasure event names. */
    void add(StoredEvent erasure) {
        JsonNode indexes = erasure.json().path(EventFields.ACTION_INPUT).path("log_indexes");
        synchronized (this) {
            for (JsonNode range : indexes) {
                ranges.put(range.get(0).longValue(), new Range(range.get(1).longValue(), erasure.id()));
            }
        }
    }

    @Override
    public synchronized String erasureOf(long logIndex) {
        Map.Entry<Long, Range> e = ranges.floorEntry(logIndex);
        return e != null && e.getValue().last() >= logIndex ? e.getValue().erasureId() : null;
    }
}
