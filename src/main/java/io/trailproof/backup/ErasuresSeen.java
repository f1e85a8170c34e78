package io.trailproof.backup;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.StoredEvent;
import java.nio.charset.StandardCharsets;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a restore's scan of a log found about erasures (src/site/erasure.md#verification): the erased
 * events (whose hash cannot be recomputed; their stored hash still enters the root) and the erasure
 * records. An erased event is accepted only when an erasure record of the same backup names its log
 * index with the same erasure id. Kept as runs of consecutive indexes, so a retention pass over
 * millions of events takes a few entries.
 */
final class ErasuresSeen {

    private record Run(long first, long last, String erasureId) {
    }

    private final List<Run> erased = new ArrayList<>();
    /** Range start to (range end, erasure id), from the erasure records. */
    private final TreeMap<Long, Run> named = new TreeMap<>();

    private static final byte[] RECORD_MARK = ("\"agent_id\":\"" + EventFields.ERASURES_AGENT + "\"")
            .getBytes(StandardCharsets.UTF_8);

    /** Whether the stored payload may be an erasure record (it names their agent); a cheap test before a parse. */
    static boolean mayBeErasureRecord(byte[] payload) {
        outer:
        for (int i = 0; i <= payload.length - RECORD_MARK.length; i++) {
            for (int j = 0; j < RECORD_MARK.length; j++) {
                if (payload[i + j] != RECORD_MARK[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** An erased event at {@code index}. */
    void erased(long index, String erasureId) {
        Run last = erased.isEmpty() ? null : erased.get(erased.size() - 1);
        if (last != null && last.last() == index - 1 && last.erasureId().equals(erasureId)) {
            erased.set(erased.size() - 1, new Run(last.first(), index, erasureId));
        } else {
            erased.add(new Run(index, index, erasureId));
        }
    }

    /** Any event: an erasure record's named ranges are kept. */
    void event(StoredEvent e) {
        if (!e.agentId().equals(EventFields.ERASURES_AGENT)) {
            return;
        }
        for (JsonNode range : e.json().path(EventFields.ACTION_INPUT).path("log_indexes")) {
            if (range.size() == 2 && range.get(0).canConvertToLong() && range.get(1).canConvertToLong()) {
                named.put(range.get(0).longValue(), new Run(range.get(0).longValue(), range.get(1).longValue(), e.id()));
            }
        }
    }

    /** The first erased index no record names with the same id, as a message; null when every one is named. */
    String unnamed() {
        for (Run run : erased) {
            long i = run.first();
            while (i <= run.last()) {
                Map.Entry<Long, Run> e = named.floorEntry(i);
                if (e == null || e.getValue().last() < i || !e.getValue().erasureId().equals(run.erasureId())) {
                    return "the event at log index " + i + " is erased (erasure " + run.erasureId()
                            + ") but no erasure record in the backup names it";
                }
                i = e.getValue().last() + 1;
            }
        }
        return null;
    }
}
